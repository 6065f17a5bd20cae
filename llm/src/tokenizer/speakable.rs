//! The tokens a voice can say: text in Latin script (ASCII, the Latin-1 and Latin Extended
//! letters), digits, punctuation and currency signs, plus every control token (the end of a
//! turn must stay possible) and the 256 single-byte tokens (so any text stays spellable).
//! A model loaded for a voice computes logits for these tokens only
//! (`LoadOptions::speakable_only`): CJK, emoji and other scripts the English voice cannot
//! read out are never produced, and the output projection shrinks by the rows it drops.

use super::Tokenizer;

/// Whether `c` is a character the voice reads out (or a space or line break).
fn speakable_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{7F}'          // ASCII
        | '\u{A0}'..='\u{24F}'      // Latin-1 Supplement, Latin Extended-A and -B
        | '\u{2000}'..='\u{206F}'   // General Punctuation: dashes, quotes, ellipsis
        | '\u{20A0}'..='\u{20CF}'   // currency signs
        | '\u{2100}'..='\u{214F}'   // letterlike symbols: °C, No., TM
    )
}

/// Whether a token standing for `bytes` is one a voice can say: whole UTF-8 made of
/// [`speakable_char`]s, or a single byte.
pub(crate) fn speakable_bytes(bytes: &[u8]) -> bool {
    if bytes.len() == 1 {
        return true;
    }
    std::str::from_utf8(bytes).is_ok_and(|s| s.chars().all(speakable_char))
}

impl Tokenizer {
    /// The ids of the tokens a voice can say, ascending (see the module header).
    pub fn speakable_ids(&self) -> Vec<u32> {
        (0..self.vocab_size() as u32)
            .filter(|&id| {
                self.is_control(id)
                    || self.is_eog(id)
                    || self.piece(id, true).is_ok_and(speakable_bytes)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::speakable_bytes;

    #[test]
    fn latin_text_digits_and_punctuation_are_speakable_other_scripts_are_not() {
        for ok in [
            " Paris", "7", " café", "—", "€", "\n\n", " naïve", "’s", "°", "\u{2122}",
        ] {
            assert!(speakable_bytes(ok.as_bytes()), "{ok:?}");
        }
        for no in ["北京", " 東", "🙂", "Привет", "مرحبا", "ε"] {
            assert!(!speakable_bytes(no.as_bytes()), "{no:?}");
        }
        // A single byte can always be said as part of a longer character; a partial
        // sequence of several bytes belongs to a character outside the set.
        assert!(speakable_bytes(&[0xE4]));
        assert!(!speakable_bytes(&[0xE4, 0xB8]));
    }
}
