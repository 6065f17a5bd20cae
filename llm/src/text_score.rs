//! How likely a model finds a short text as a user's whole message: the summed log-probability
//! of its tokens, and of the turn's end after them, following the system prompt and the
//! user-turn opening of the model's template. A recognizer asks it of each of its hearings
//! of a pause's words to pick the one a person would say ("What is the boiling point of
//! water?" over "What is the boiling boy of water?"). Texts asked one after the other reuse
//! the cache of the tokens they share with the text before, so a beam's hearings, which
//! mostly differ in a word or two, cost little more than one.

use std::sync::Arc;

use crate::LlmError;
use crate::chat::{ChatTemplate, Role};
use crate::model::Model;
use crate::session::{Session, SessionOptions};

/// Most tokens of one text scored (a longer one is not a question worth rescoring).
const MAX_TEXT_TOKENS: usize = 96;

/// A model's log-probability of a text as a user's message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextLogProb {
    /// Summed natural log-probability of the text's tokens and of the turn's end.
    pub sum: f64,
    /// The tokens summed over (the turn's end counted).
    pub tokens: usize,
}

/// Scores texts as user messages on a session of its own over a shared model.
pub struct TextScorer {
    session: Session,
    /// Tokens of the system prompt and the user turn's opening.
    head: usize,
    /// Logits after the head.
    head_logits: Vec<f32>,
    /// The text's tokens after `head` (then the turn's end), as last scored.
    ids: Vec<u32>,
    /// `cum[i]`: summed log-probability of `ids[..i]`.
    cum: Vec<f64>,
    /// The turn's closing text without its trailing newline ("<|im_end|>" in ChatML),
    /// appended to each text.
    close: String,
    scratch: Vec<u32>,
    text: String,
    /// The exponentials of one position's logits.
    exps: Vec<f32>,
}

impl std::fmt::Debug for TextScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextScorer")
            .field("head", &self.head)
            .finish()
    }
}

impl TextScorer {
    /// Most tokens of one text scored, its turn's end included.
    pub const MAX_TEXT_TOKENS: usize = MAX_TEXT_TOKENS;

    /// A scorer on `model` with `system_prompt` (`None`: the template's default, if any), its
    /// session on `threads` threads.
    pub fn new(
        model: Arc<Model>,
        system_prompt: Option<&str>,
        threads: usize,
    ) -> Result<Self, LlmError> {
        let template = ChatTemplate::of_model(model.gguf().metadata(), model.tokenizer())?;
        let mut head_text = String::new();
        if let Some(s) = system_prompt.or(template.default_system()) {
            template.turn_into(Role::System, s, &mut head_text);
        }
        template.header_into(Role::User, &mut head_text);
        let mut close = String::new();
        template.turn_end_into(&mut close);
        // The closing text's trailing newline is not the model's to predict here.
        close.truncate(close.trim_end().len());
        let mut head = Vec::new();
        model
            .tokenizer()
            .encode_into(&head_text, true, true, &mut head);
        let mut session = Session::new(
            model,
            SessionOptions {
                context: head.len() + MAX_TEXT_TOKENS + 8,
                threads,
                batch: 64,
            },
        )?;
        let head_logits = session.prefill(&head)?.to_vec();
        Ok(Self {
            head: head.len(),
            session,
            head_logits,
            ids: Vec::with_capacity(MAX_TEXT_TOKENS + 8),
            cum: Vec::with_capacity(MAX_TEXT_TOKENS + 8),
            close,
            scratch: Vec::with_capacity(MAX_TEXT_TOKENS + 8),
            text: String::new(),
            exps: Vec::new(),
        })
    }

    /// The log-probability of `text` (trimmed) as the user's whole message; `None` for an
    /// empty text or one of more than [`Self::MAX_TEXT_TOKENS`] tokens.
    pub fn log_prob(&mut self, text: &str) -> Result<Option<TextLogProb>, LlmError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        self.text.clear();
        self.text.push_str(text);
        self.text.push_str(&self.close);
        self.scratch.clear();
        let tokenizer = self.session.model().tokenizer();
        tokenizer.encode_into(&self.text, false, true, &mut self.scratch);
        if self.scratch.len() > MAX_TEXT_TOKENS {
            return Ok(None);
        }
        let scored = self.score_from_shared();
        if scored.is_err() {
            // Whatever the cache holds now, the next text starts over after the head.
            self.session.truncate(self.head);
            self.ids.clear();
            self.cum.clear();
        }
        scored?;
        let n = self.scratch.len();
        Ok(Some(TextLogProb {
            sum: self.cum[n],
            tokens: n,
        }))
    }

    /// Scores `scratch` (the text's tokens) into `ids` / `cum`. The cache holds the head and
    /// every scored token but the last (nothing after it is scored); tokens shared with the
    /// text scored before keep their cache and sums, and the last shared one is run again
    /// for the logits that score the first new token.
    fn score_from_shared(&mut self) -> Result<(), LlmError> {
        let cached = self.session.len().saturating_sub(self.head);
        let shared = self
            .ids
            .iter()
            .zip(&self.scratch)
            .take_while(|(a, b)| a == b)
            .count()
            .min(cached + 1);
        self.session.truncate(self.head + shared.saturating_sub(1));
        self.ids.truncate(shared);
        self.cum.truncate(shared + 1);
        if self.cum.is_empty() {
            self.cum.push(0.0);
        }
        let n = self.scratch.len();
        let mut next = shared;
        while next < n {
            if next == 0 {
                let lp = log_prob(&self.head_logits, self.scratch[0], &mut self.exps);
                self.push(self.scratch[0], lp);
                next = 1;
                continue;
            }
            // The cache holds the head and tokens `..next - 1`: run from `next - 1` (never
            // the last token, whose logits score nothing).
            let run = next - 1..(next - 1 + Session::EACH_MAX).min(n - 1);
            let len = run.len();
            self.session.run_each(&self.scratch[run])?;
            for i in 0..len {
                let lp = log_prob(
                    self.session.logits_after(i),
                    self.scratch[next + i],
                    &mut self.exps,
                );
                self.push(self.scratch[next + i], lp);
            }
            next += len;
        }
        Ok(())
    }

    fn push(&mut self, id: u32, lp: f64) {
        let before = self.cum.last().copied().unwrap_or(0.0);
        self.ids.push(id);
        self.cum.push(before + lp);
    }
}

/// Log-softmax of `logits` at `id` (`-inf` for an id with no logit), its exponentials taken
/// by the SIMD kernel in `scratch`.
fn log_prob(logits: &[f32], id: u32, scratch: &mut Vec<f32>) -> f64 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let Some(&l) = logits.get(id as usize) else {
        return f64::NEG_INFINITY;
    };
    if !max.is_finite() {
        return f64::NEG_INFINITY;
    }
    scratch.clear();
    scratch.extend_from_slice(logits);
    let total = pocket_kernels::vec::exp_sub(scratch, max);
    f64::from(l - max) - f64::from(total).ln()
}
