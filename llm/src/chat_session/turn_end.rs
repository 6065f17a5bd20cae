//! Is the user done? The chance, by the model itself, that the user's words so far are a whole
//! turn: after the words (trailing punctuation taken off, as a recognizer's guess at it says
//! little), the probability that the next token closes the user's message or ends the
//! sentence (`.`, `?`, `!`). "What is the capital of" scores ~0, "What is the capital of
//! France" ~0.9 (docs/PERFORMANCE.md has the measured split). The words run into the cache
//! as they would for the reply, so a reply to them that follows reuses all but the last few
//! tokens; nothing joins the history.

use std::sync::atomic::AtomicBool;

use super::ChatSession;
use crate::LlmError;

/// Tokens that end a sentence, besides the template's end of the user's message.
const SENTENCE_ENDS: [&str; 3] = [".", "?", "!"];

impl ChatSession {
    /// The probability (0..=1) that `user_text` is the user's whole turn. `None` when there is
    /// nothing to judge (no words), the turn cannot fit the context, or `cancel` was set.
    pub fn turn_end_probability(
        &mut self,
        user_text: &str,
        cancel: &AtomicBool,
    ) -> Result<Option<f32>, LlmError> {
        let words = user_text
            .trim()
            .trim_end_matches(|c: char| !c.is_alphanumeric());
        if words.is_empty() {
            return Ok(None);
        }
        if self.transcript.is_empty() {
            self.render_transcript(self.history.len());
        }
        if self.make_room(words).is_err() {
            return Ok(None);
        }
        // `make_room` left the new turn's text in `self.prompt`: cut it where the words end.
        let Some(at) = self.prompt.rfind(words).map(|i| i + words.len()) else {
            return Ok(None);
        };
        let model = self.session.model().clone();
        let tokenizer = model.tokenizer();
        let mut tail = Vec::new();
        tokenizer.encode_into(&self.prompt[at..], false, true, &mut tail);
        let Some(&close) = tail.first() else {
            return Ok(None);
        };
        let mut head = std::mem::take(&mut self.tokens);
        head.truncate(self.transcript.len());
        tokenizer.encode_into(&self.prompt[..at], false, true, &mut head);
        let ran = self.sync_cache(&head, cancel);
        let complete = self.session.len() == head.len();
        self.tokens = head;
        ran?;
        if !complete {
            return Ok(None);
        }
        let logits = self.session.logits();
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let total: f32 = logits.iter().map(|&l| (l - max).exp()).sum();
        let p = |id: u32| {
            logits
                .get(id as usize)
                .map_or(0.0, |&l| (l - max).exp() / total)
        };
        let mut end = p(close);
        let mut ids = Vec::new();
        for s in SENTENCE_ENDS {
            ids.clear();
            tokenizer.encode_into(s, false, false, &mut ids);
            if let [id] = ids[..]
                && id != close
            {
                end += p(id);
            }
        }
        Ok(Some(end.clamp(0.0, 1.0)))
    }
}
