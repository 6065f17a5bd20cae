//! The spoken timeline of the current reply: which text sits at which output samples, so a
//! playback position maps back to the words the user actually heard.

/// One synthesized segment and where its audio sits in the turn's output.
#[derive(Debug, Clone, PartialEq)]
struct Spoken {
    text: String,
    start: u64,
    end: u64,
}

/// Segments of one turn, in output samples counted from the turn's first sample.
#[derive(Debug, Default)]
pub(crate) struct Timeline {
    turn: u64,
    segments: Vec<Spoken>,
}

impl Timeline {
    /// Starts a segment of `turn` at output sample `start` (a new turn clears the old one).
    pub(crate) fn begin(&mut self, turn: u64, text: &str, start: u64) {
        if turn != self.turn {
            self.turn = turn;
            self.segments.clear();
        }
        self.segments.push(Spoken {
            text: text.to_string(),
            start,
            end: start,
        });
    }

    /// The current segment of `turn` now extends to `end`.
    pub(crate) fn extend(&mut self, turn: u64, end: u64) {
        if turn == self.turn
            && let Some(s) = self.segments.last_mut()
        {
            s.end = end;
        }
    }

    /// What the user heard of `turn` after `played` samples: whole segments before it, and the
    /// words of the segment in progress whose share of its audio had played.
    pub(crate) fn heard(&self, turn: u64, played: u64) -> String {
        if turn != self.turn || played == 0 {
            return String::new();
        }
        let mut parts: Vec<&str> = Vec::new();
        let mut partial = String::new();
        for s in &self.segments {
            if s.end == s.start && played >= s.start {
                // No audio (synthesis failed on it): never heard, and no end of what was.
                continue;
            }
            if played >= s.end && s.end > s.start {
                parts.push(&s.text);
            } else if played > s.start && s.end > s.start {
                let frac = (played - s.start) as f64 / (s.end - s.start) as f64;
                partial = words_within(&s.text, frac);
                break;
            } else {
                break;
            }
        }
        if !partial.is_empty() {
            parts.push(&partial);
        }
        parts.join(" ")
    }
}

/// The words of `text` that end within the first `frac` of its characters.
fn words_within(text: &str, frac: f64) -> String {
    let total = text.chars().count().max(1) as f64;
    let cut = frac * total;
    let mut end_byte = 0;
    let mut chars_seen = 0usize;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if in_word && chars_seen as f64 <= cut {
                end_byte = i;
            }
            in_word = false;
        } else {
            in_word = true;
        }
        chars_seen += 1;
    }
    if in_word && chars_seen as f64 <= cut {
        end_byte = text.len();
    }
    text[..end_byte].trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_position_to_heard_words() {
        let mut t = Timeline::default();
        t.begin(4, "Hello there,", 0);
        t.extend(4, 1000);
        t.begin(4, "how are you today?", 1000);
        t.extend(4, 2000);
        assert_eq!(t.heard(4, 0), "");
        assert_eq!(t.heard(4, 999), "Hello");
        assert_eq!(t.heard(4, 1000), "Hello there,");
        assert_eq!(t.heard(4, 1500), "Hello there, how are");
        assert_eq!(t.heard(4, 5000), "Hello there, how are you today?");
        assert_eq!(
            t.heard(3, 1500),
            "",
            "another turn heard nothing of this one"
        );
        t.begin(5, "New.", 0);
        assert_eq!(t.heard(4, 1500), "");
    }

    #[test]
    fn a_segment_without_audio_is_skipped() {
        let mut t = Timeline::default();
        t.begin(4, "Hello there,", 0);
        t.extend(4, 1000);
        t.begin(4, "lost words", 1000);
        t.begin(4, "how are you?", 1000);
        t.extend(4, 2000);
        assert_eq!(t.heard(4, 1000), "Hello there,");
        assert_eq!(t.heard(4, 1500), "Hello there, how");
    }

    #[test]
    fn words_within_counts_whole_words_only() {
        assert_eq!(words_within("one two three", 0.0), "");
        assert_eq!(words_within("one two three", 0.3), "one");
        assert_eq!(words_within("one two three", 1.0), "one two three");
        assert_eq!(words_within("héllo wörld", 0.6), "héllo");
    }
}
