//! A minimal reply segmenter used until `pocket_tts::Segmenter` lands: the first segment ends at
//! the first clause break (so the voice starts early), later ones at sentence ends.

use super::TextSegmenter;

/// Clause-then-sentence segmenter.
#[derive(Debug, Default)]
pub struct ClauseSegmenter {
    pending: String,
    emitted: usize,
}

impl ClauseSegmenter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Byte index just past the first cut point in `pending`, if any.
    fn cut(&self) -> Option<usize> {
        let first = self.emitted == 0;
        let chars: Vec<(usize, char)> = self.pending.char_indices().collect();
        for (k, &(i, c)) in chars.iter().enumerate() {
            let next = chars.get(k + 1).map(|&(_, n)| n);
            // A break needs the following whitespace to be seen (so "3.5" or "e.g" stay whole).
            let followed_by_space = matches!(next, Some(n) if n.is_whitespace());
            let sentence_end = matches!(c, '.' | '!' | '?' | ';' | ':') && followed_by_space;
            let clause_end = first && c == ',' && followed_by_space && self.words_before(i) >= 3;
            if c == '\n' || sentence_end || clause_end {
                return Some(i + c.len_utf8());
            }
        }
        None
    }

    fn words_before(&self, byte: usize) -> usize {
        self.pending[..byte].split_whitespace().count()
    }
}

impl TextSegmenter for ClauseSegmenter {
    fn push(&mut self, text: &str, out: &mut Vec<String>) {
        self.pending.push_str(text);
        while let Some(end) = self.cut() {
            let seg = self.pending[..end].trim().to_string();
            self.pending.drain(..end);
            if seg.chars().any(|c| c.is_alphanumeric()) {
                self.emitted += 1;
                out.push(seg);
            }
        }
    }

    fn flush(&mut self) -> Option<String> {
        let seg = self.pending.trim().to_string();
        self.reset();
        seg.chars().any(|c| c.is_alphanumeric()).then_some(seg)
    }

    fn reset(&mut self) {
        self.pending.clear();
        self.emitted = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pieces: &[&str]) -> Vec<String> {
        let mut s = ClauseSegmenter::new();
        let mut out = Vec::new();
        for p in pieces {
            s.push(p, &mut out);
        }
        out.extend(s.flush());
        out
    }

    #[test]
    fn first_clause_early_then_sentences() {
        let out = run(&[
            "Well, I think",
            " that is",
            " right, and",
            " more. Yes it is. 3.5",
            " works",
        ]);
        assert_eq!(
            out,
            vec![
                "Well, I think that is right,",
                "and more.",
                "Yes it is.",
                "3.5 works"
            ]
        );
    }

    #[test]
    fn symbols_only_make_no_segment_and_reset_drops_text() {
        assert!(run(&["... ", "!! "]).is_empty());
        let mut s = ClauseSegmenter::new();
        let mut out = Vec::new();
        s.push("Hello there", &mut out);
        s.reset();
        assert_eq!(s.flush(), None);
    }
}
