//! Streaming removal of `<think>...</think>` blocks from generated text. Tags may arrive
//! split over any number of pieces; text that might be the start of a tag is held back
//! until it is known.

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// Filters generated text pieces so that nothing inside a think block comes out. Also drops
/// the whitespace that follows a closing tag. Buffers are reused: no allocation per piece
/// once warmed up.
#[derive(Debug, Default, Clone)]
pub struct ThinkFilter {
    inside: bool,
    skip_ws: bool,
    held: String,
    out: String,
}

impl ThinkFilter {
    /// A filter for output that starts outside a think block.
    pub fn new() -> Self {
        Self::default()
    }

    /// A filter for output that starts inside a think block (the prompt ended with
    /// `<think>`).
    pub fn starting_inside() -> Self {
        Self {
            inside: true,
            ..Self::default()
        }
    }

    /// True while inside a think block.
    pub fn is_inside(&self) -> bool {
        self.inside
    }

    /// Feeds a piece of generated text; returns the part that may be spoken.
    pub fn push(&mut self, piece: &str) -> &str {
        self.out.clear();
        self.held.push_str(piece);
        let mut buf = std::mem::take(&mut self.held);
        let mut rest: &str = &buf;
        loop {
            if self.inside {
                if let Some(at) = rest.find(CLOSE) {
                    rest = &rest[at + CLOSE.len()..];
                    self.inside = false;
                    self.skip_ws = true;
                    continue;
                }
                // Keep only what could begin the closing tag.
                let keep = partial_tag_suffix(rest, CLOSE);
                self.held.push_str(&rest[rest.len() - keep..]);
                break;
            }
            if self.skip_ws {
                rest = rest.trim_start();
                if rest.is_empty() {
                    break;
                }
                self.skip_ws = false;
            }
            if let Some(at) = rest.find(OPEN) {
                self.out.push_str(&rest[..at]);
                rest = &rest[at + OPEN.len()..];
                self.inside = true;
                continue;
            }
            let keep = partial_tag_suffix(rest, OPEN);
            self.out.push_str(&rest[..rest.len() - keep]);
            self.held.push_str(&rest[rest.len() - keep..]);
            break;
        }
        buf.clear();
        if self.held.is_empty() {
            // Give the (empty) buffer back so its capacity is reused.
            self.held = buf;
        }
        &self.out
    }

    /// Ends the stream: held text that turned out not to be a tag is returned; an
    /// unfinished think block is dropped.
    pub fn flush(&mut self) -> &str {
        self.out.clear();
        if !self.inside && !self.skip_ws {
            self.out.push_str(&self.held);
        }
        self.held.clear();
        self.inside = false;
        self.skip_ws = false;
        &self.out
    }

    /// Back to the initial state (outside a block).
    pub fn reset(&mut self) {
        self.inside = false;
        self.skip_ws = false;
        self.held.clear();
        self.out.clear();
    }
}

/// Length of the longest suffix of `s` that is a proper prefix of `tag`.
fn partial_tag_suffix(s: &str, tag: &str) -> usize {
    (1..tag.len().min(s.len() + 1))
        .rev()
        .find(|&n| s.is_char_boundary(s.len() - n) && tag.starts_with(&s[s.len() - n..]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: &mut ThinkFilter, pieces: &[&str]) -> String {
        let mut out = String::new();
        for p in pieces {
            out.push_str(f.push(p));
        }
        out.push_str(f.flush());
        out
    }

    /// Every split of `text` into two and three pieces gives `want`.
    fn all_splits(text: &str, want: &str) {
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &a in &cuts {
            assert_eq!(
                run(&mut ThinkFilter::new(), &[&text[..a], &text[a..]]),
                want,
                "split at {a}"
            );
            for &b in cuts.iter().filter(|&&b| b >= a) {
                let got = run(
                    &mut ThinkFilter::new(),
                    &[&text[..a], &text[a..b], &text[b..]],
                );
                assert_eq!(got, want, "splits at {a}, {b}");
            }
        }
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(
            run(&mut ThinkFilter::new(), &pieces),
            want,
            "one char at a time"
        );
    }

    #[test]
    fn removes_think_blocks_split_anywhere() {
        all_splits("<think>\nplan the answer\n</think>\n\nIt is 4.", "It is 4.");
        all_splits(
            "Sure. <think>hmm</think> Done <think>x</think>",
            "Sure. Done ",
        );
        all_splits(
            "a < b and <thin is not a tag, </think> neither",
            "a < b and <thin is not a tag, </think> neither",
        );
        all_splits("<think>unclosed forever", "");
        all_splits("日本<think>考え</think>語", "日本語");
        all_splits("ends with <thi", "ends with <thi");
    }

    #[test]
    fn starting_inside_and_reset() {
        let mut f = ThinkFilter::starting_inside();
        assert!(f.is_inside());
        assert_eq!(
            run(&mut f, &["reasoning...", "</think>", "\n\nAnswer"]),
            "Answer"
        );
        let mut f = ThinkFilter::new();
        assert_eq!(f.push("x<think>y"), "x");
        assert!(f.is_inside());
        f.reset();
        assert_eq!(f.push("z"), "z");
    }

    #[test]
    fn partial_suffixes() {
        assert_eq!(partial_tag_suffix("abc<th", OPEN), 3);
        assert_eq!(partial_tag_suffix("abc<", OPEN), 1);
        assert_eq!(partial_tag_suffix("abc", OPEN), 0);
        assert_eq!(partial_tag_suffix("</think", CLOSE), 7);
        assert_eq!(partial_tag_suffix("é<", CLOSE), 1);
        assert_eq!(partial_tag_suffix("", CLOSE), 0);
    }
}
