//! Incremental detokenizer: turns a stream of token ids into text pieces that never split
//! a UTF-8 character (a character spread over several byte tokens is held back until it is
//! complete).

use super::Tokenizer;
use crate::LlmError;

/// Streaming decoder state. Allocation-free after the first few tokens: the held bytes and
/// the output piece reuse their buffers.
#[derive(Debug, Default, Clone)]
pub struct StreamDecoder {
    held: Vec<u8>,
    piece: String,
    special: bool,
}

impl StreamDecoder {
    /// A decoder that omits control tokens (`<|im_end|>`, ...) from the text.
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that renders control tokens as their text.
    pub fn with_special() -> Self {
        Self {
            special: true,
            ..Self::default()
        }
    }

    /// Adds token `id` and returns the text completed by it (possibly empty). Bytes that
    /// can never become valid UTF-8 are replaced by U+FFFD; an incomplete character at the
    /// end is held for the next token.
    pub fn push(&mut self, tokenizer: &Tokenizer, id: u32) -> Result<&str, LlmError> {
        self.held
            .extend_from_slice(tokenizer.piece(id, self.special)?);
        self.piece.clear();
        let mut start = 0;
        loop {
            match std::str::from_utf8(&self.held[start..]) {
                Ok(s) => {
                    self.piece.push_str(s);
                    start = self.held.len();
                    break;
                }
                Err(e) => {
                    let valid = start + e.valid_up_to();
                    // The prefix was just validated.
                    self.piece.push_str(
                        std::str::from_utf8(&self.held[start..valid]).unwrap_or_default(),
                    );
                    match e.error_len() {
                        Some(n) => {
                            self.piece.push(char::REPLACEMENT_CHARACTER);
                            start = valid + n;
                        }
                        None => {
                            start = valid;
                            break;
                        }
                    }
                }
            }
        }
        self.held.drain(..start);
        Ok(&self.piece)
    }

    /// Ends the stream: returns held bytes of an unfinished character as U+FFFD (empty if
    /// none) and resets the decoder.
    pub fn flush(&mut self) -> &str {
        self.piece.clear();
        if !self.held.is_empty() {
            self.piece.push_str(&String::from_utf8_lossy(&self.held));
            self.held.clear();
        }
        &self.piece
    }

    /// Drops held bytes (e.g. when a turn is cancelled).
    pub fn reset(&mut self) {
        self.held.clear();
        self.piece.clear();
    }

    /// Number of bytes held back waiting for the rest of a character.
    pub fn pending_bytes(&self) -> usize {
        self.held.len()
    }
}
