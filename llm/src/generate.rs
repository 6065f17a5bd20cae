//! Streaming generation on a [`Session`]: sample, decode to text pieces (whole UTF-8
//! characters, `<think>` content removed), hand each piece to a callback, run the token,
//! repeat. The cancellation flag is read before every token, so a barge-in stops generation
//! within one token; the callback can stop it too.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::LlmError;
use crate::chat::ThinkFilter;
use crate::sampler::Sampler;
use crate::session::Session;
use crate::tokenizer::StreamDecoder;

/// Why generation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The model produced an end-of-generation token.
    EndOfText,
    /// `max_tokens` were generated.
    MaxTokens,
    /// The session's context is full.
    ContextFull,
    /// The cancellation flag was set.
    Cancelled,
    /// The piece callback returned `Break`.
    Stopped,
}

/// What a [`generate`] call produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// Tokens sampled (the end-of-generation token not counted).
    pub tokens: usize,
    pub stop: StopReason,
    /// From the call to the first sampled token.
    pub first_token: Option<Duration>,
    /// Time spent running sampled tokens through the model.
    pub decode: Duration,
}

/// Reusable state for [`generate`]: detokenizer and think filter.
#[derive(Debug, Default, Clone)]
pub struct TextStream {
    decoder: StreamDecoder,
    think: ThinkFilter,
}

impl TextStream {
    /// A stream whose output starts outside a think block.
    pub fn new() -> TextStream {
        TextStream::default()
    }

    /// Back to the initial state; `inside_think` when the prompt ended with `<think>`.
    pub fn reset(&mut self, inside_think: bool) {
        self.decoder.reset();
        self.think = if inside_think {
            ThinkFilter::starting_inside()
        } else {
            ThinkFilter::new()
        };
    }
}

/// Generates from the logits the session holds (call after a prefill) until an
/// end-of-generation token, `max_tokens`, a full context, `cancel`, or `on_piece` breaks.
/// Sampled tokens are run through the model (so they are in the session afterwards), except
/// the end-of-generation token and the token sampled when stopping. `on_piece` receives the
/// speakable text as it is decoded; `on_token` every sampled token id.
pub fn generate(
    session: &mut Session,
    sampler: &mut Sampler,
    stream: &mut TextStream,
    max_tokens: usize,
    cancel: &AtomicBool,
    on_piece: &mut dyn FnMut(&str) -> ControlFlow<()>,
    on_token: &mut dyn FnMut(u32),
) -> Result<Generated, LlmError> {
    let start = Instant::now();
    let model = session.model().clone();
    let tok = model.tokenizer();
    let mut out = Generated {
        tokens: 0,
        stop: StopReason::MaxTokens,
        first_token: None,
        decode: Duration::ZERO,
    };
    if max_tokens == 0 {
        return Ok(out);
    }
    loop {
        if cancel.load(Ordering::Acquire) {
            out.stop = StopReason::Cancelled;
            break;
        }
        let token = sampler.sample(session.logits())?;
        out.first_token.get_or_insert_with(|| start.elapsed());
        if tok.is_eog(token) {
            out.stop = StopReason::EndOfText;
            break;
        }
        sampler.accept(token);
        on_token(token);
        out.tokens += 1;
        let piece = stream.decoder.push(tok, token)?;
        let speak = stream.think.push(piece);
        if !speak.is_empty() && on_piece(speak).is_break() {
            out.stop = StopReason::Stopped;
            break;
        }
        if out.tokens >= max_tokens {
            out.stop = StopReason::MaxTokens;
            break;
        }
        if session.len() >= session.capacity() {
            out.stop = StopReason::ContextFull;
            break;
        }
        let t = Instant::now();
        session.decode(token)?;
        out.decode += t.elapsed();
    }
    // Text still held (an unfinished character, a tag prefix that was not a tag).
    if matches!(
        out.stop,
        StopReason::EndOfText | StopReason::MaxTokens | StopReason::ContextFull
    ) {
        let tail = stream.decoder.flush();
        let mut rest = stream.think.push(tail).to_string();
        rest.push_str(stream.think.flush());
        if !rest.is_empty() {
            let _ = on_piece(&rest);
        }
    }
    Ok(out)
}
