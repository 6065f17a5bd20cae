//! A synthetic byte-level BPE vocabulary for random-weight test models: the 256 byte tokens,
//! merges learned from a small built-in English/code sample (so ordinary text becomes
//! multi-character tokens, as with a real vocabulary), then deterministic random merges of
//! existing tokens up to the wanted size.

use std::collections::{HashMap, HashSet};

use pocket_stats::Rng;

/// GPT-2's byte -> printable character map (byte-level BPE alphabet).
pub(crate) fn byte_char(b: u8) -> char {
    let printable = |b: u8| {
        (b'!'..=b'~').contains(&b) || (0xA1..=0xAC).contains(&b) || (0xAE..=0xFF).contains(&b)
    };
    if printable(b) {
        return char::from(b);
    }
    let n = (0..b).filter(|&x| !printable(x)).count() as u32;
    char::from_u32(256 + n).unwrap_or('?')
}

const SAMPLE: &str = "The quick brown fox jumps over the lazy dog. A voice assistant listens, thinks and \
answers in a few words. What is the weather like today? It is sunny and warm, with a light wind from \
the west. Please set a timer for ten minutes. Sure, the timer is running. How far is the moon? About \
three hundred eighty four thousand kilometers. Tell me a story about a small robot who wanted to paint \
the sea. Once upon a time there was a little robot that lived by the water and watched the waves every \
morning. The capital of France is Paris, and the capital of Japan is Tokyo. I would like to hear some \
music, something calm for the evening. Here is a function that returns the sum of two numbers: fn add(a: \
i32, b: i32) -> i32 { a + b } and in Python def add(a, b): return a + b. Numbers like 2024, 3.14 and 100 \
appear in text all the time. Thank you, that was helpful! You are welcome. Good morning, good night, \
see you tomorrow. Where is the nearest station? Turn left at the second street and walk straight on.";

/// `n` normal tokens (bytes first) and the merges that build them.
pub(crate) fn build(n: usize, seed: u64) -> (Vec<String>, Vec<String>) {
    let mut tokens: Vec<String> = (0..=255u8).map(|b| byte_char(b).to_string()).collect();
    let mut known: HashSet<String> = tokens.iter().cloned().collect();
    let mut merges = Vec::new();
    // Words with their leading space, as byte-level characters.
    let mut words: HashMap<Vec<String>, usize> = HashMap::new();
    for (i, w) in SAMPLE.split(' ').enumerate() {
        let text = if i == 0 {
            w.to_string()
        } else {
            format!(" {w}")
        };
        let chars: Vec<String> = text.bytes().map(|b| byte_char(b).to_string()).collect();
        *words.entry(chars).or_default() += 1;
    }
    let mut words: Vec<(Vec<String>, usize)> = words.into_iter().collect();
    words.sort();
    // Learned merges: most frequent pair first (ties broken by the pair's text).
    while tokens.len() < n {
        let mut counts: HashMap<(&str, &str), usize> = HashMap::new();
        for (w, c) in &words {
            for p in w.windows(2) {
                *counts.entry((&p[0], &p[1])).or_default() += c;
            }
        }
        let Some((&(a, b), &count)) = counts.iter().max_by(|x, y| x.1.cmp(y.1).then(y.0.cmp(x.0)))
        else {
            break;
        };
        if count < 2 {
            break;
        }
        let (a, b) = (a.to_string(), b.to_string());
        let joined = format!("{a}{b}");
        for (w, _) in words.iter_mut() {
            let mut i = 0;
            while i + 1 < w.len() {
                if w[i] == a && w[i + 1] == b {
                    w[i] = joined.clone();
                    w.remove(i + 1);
                }
                i += 1;
            }
        }
        merges.push(format!("{a} {b}"));
        if known.insert(joined.clone()) {
            tokens.push(joined);
        }
    }
    // Random merges of existing tokens.
    let mut rng = Rng::new(seed ^ 0x70C3_7ABB);
    let mut attempts = 0usize;
    while tokens.len() < n && attempts < 50 * n {
        attempts += 1;
        let a = &tokens[rng.below(tokens.len())];
        let b = &tokens[rng.below(tokens.len())];
        if a.chars().count() + b.chars().count() > 12 {
            continue;
        }
        let joined = format!("{a}{b}");
        if known.contains(&joined) {
            continue;
        }
        merges.push(format!("{a} {b}"));
        known.insert(joined.clone());
        tokens.push(joined);
    }
    (tokens, merges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_map_is_a_bijection_like_gpt2() {
        let chars: HashSet<char> = (0..=255u8).map(byte_char).collect();
        assert_eq!(chars.len(), 256);
        assert_eq!(byte_char(b' '), '\u{120}');
        assert_eq!(byte_char(b'\n'), '\u{10A}');
        assert_eq!(byte_char(b'a'), 'a');
    }

    #[test]
    fn every_merge_builds_a_token() {
        let (tokens, merges) = build(2000, 1);
        assert_eq!(tokens.len(), 2000);
        let set: HashSet<&str> = tokens.iter().map(|s| s.as_str()).collect();
        for m in &merges {
            let (a, b) = m.split_once(' ').expect("pair");
            assert!(
                set.contains(a) && set.contains(b) && set.contains(format!("{a}{b}").as_str()),
                "{m}"
            );
        }
        assert!(set.contains("Ġthe"), "learned merges make common words");
    }
}
