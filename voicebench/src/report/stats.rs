//! Numbers for the score report: nearest-rank percentiles and word error rate.

use pocket_stats::{nearest_rank, sorted};
use serde::Serialize;

/// P50/P90/P99 (nearest rank) and mean of one quantity over the samples that have it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    pub n: usize,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

impl Spread {
    pub fn of(values: &[f64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        let v = sorted(values);
        Some(Self {
            n: v.len(),
            mean: v.iter().sum::<f64>() / v.len() as f64,
            p50: nearest_rank(&v, 0.5),
            p90: nearest_rank(&v, 0.9),
            p99: nearest_rank(&v, 0.99),
        })
    }
}

/// Lowercase words with punctuation dropped (apostrophes inside words kept: "don't").
pub fn normalize_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| c.is_whitespace() || (c.is_ascii_punctuation() && c != '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Corpus WER over (reference, hypothesis) pairs: all edits over all reference words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wer {
    pub n: usize,
    pub reference_words: usize,
    pub edits: usize,
    pub wer: f64,
}

impl Wer {
    pub fn of<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<Self> {
        let (mut n, mut words, mut edits) = (0, 0, 0);
        for (reference, hyp) in pairs {
            let r = normalize_words(reference);
            let h = normalize_words(hyp);
            n += 1;
            words += r.len();
            edits += pocket_stats::edit_distance(&r, &h);
        }
        (n > 0).then(|| Self {
            n,
            reference_words: words,
            edits,
            wer: if words == 0 {
                0.0
            } else {
                edits as f64 / words as f64
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wer_ignores_case_and_punctuation() {
        let w = Wer::of([("Hello, world! Don't stop.", "hello world don't stop")]).expect("one");
        assert_eq!((w.edits, w.reference_words), (0, 4));
        let w = Wer::of([("a b c d", "a x c")]).expect("one");
        assert_eq!(w.edits, 2);
        assert!((w.wer - 0.5).abs() < 1e-9);
        assert!(Wer::of(std::iter::empty()).is_none());
    }

    #[test]
    fn spread_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Spread::of(&v).expect("values");
        assert_eq!((s.p50, s.p90, s.p99), (50.0, 90.0, 99.0));
        assert!((s.mean - 50.5).abs() < 1e-9);
        assert!(Spread::of(&[]).is_none());
    }
}
