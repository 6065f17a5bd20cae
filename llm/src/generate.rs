//! Streaming generation on a [`Session`]: sample, decode to text pieces (whole UTF-8
//! characters, `<think>` content removed), hand each piece to a callback, run the token,
//! repeat. A token may take a draft of the next ones from the context with it
//! ([`draft_from_context`]): one pass runs them all, and the sampler then picks from the
//! logits after each drafted token in turn, keeping the drafted tokens while it picks them,
//! so the reply is the one sampled token by token and only passes are saved. The cancellation
//! flag is read before every token, so a barge-in stops generation within one token; the
//! callback can stop it too.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::LlmError;
use crate::chat::ThinkFilter;
use crate::draft::draft_from_context;
use crate::sampler::Sampler;
use crate::session::Session;
use crate::tokenizer::{StreamDecoder, Tokenizer};

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
    /// Tokens drafted from the context and run with a sampled token.
    pub drafted: usize,
    /// Drafted tokens the sampler then picked (the passes saved).
    pub accepted: usize,
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

/// When a reply's tokens take drafts from the context with them ([`generate`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drafts {
    /// Most tokens drafted after a sampled token (at most [`Session::EACH_MAX`] − 1; 0: off,
    /// one token per pass).
    pub tokens: usize,
    /// Drafts start this long after the reply's first token. A voice reply's first spoken
    /// piece is what the user waits for, and drafts rarely hold in its opening words (a reply
    /// restates the question only after them), while a pass with a failed 4-token draft takes
    /// ~45% longer with the AVX2 kernels and twice as long with AMX (docs/PERFORMANCE.md,
    /// "Drafts"): the voice loop lets that piece out first.
    pub after: Duration,
}

/// Generates from the logits the session holds (call after a prefill) until an
/// end-of-generation token, `max_tokens`, a full context, `cancel`, or `on_piece` breaks.
/// Sampled tokens are run through the model (so they are in the session afterwards), except
/// the end-of-generation token and the token sampled when stopping. With `drafts`, tokens
/// drafted from the context go with a sampled token in one pass. `on_piece` receives the
/// speakable text as it is decoded; `on_token` every sampled token id.
#[allow(clippy::too_many_arguments)]
pub fn generate(
    session: &mut Session,
    sampler: &mut Sampler,
    stream: &mut TextStream,
    max_tokens: usize,
    drafts: Drafts,
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
        drafted: 0,
        accepted: 0,
    };
    if max_tokens == 0 {
        return Ok(out);
    }
    let draft = drafts.tokens.min(Session::EACH_MAX - 1);
    let stop_draft = |t: u32| tok.is_control(t) || tok.is_eog(t);
    // One pass's tokens: the sampled one, then its draft (allocated once per reply).
    let mut run: Vec<u32> = Vec::with_capacity(Session::EACH_MAX);
    let mut drafted: Vec<u32> = Vec::with_capacity(Session::EACH_MAX);
    // A token sampled already: from the logits after the last drafted token that held.
    let mut next: Option<u32> = None;
    let mut take = Take {
        tok,
        stream,
        on_piece,
        on_token,
        start,
        max_tokens,
    };
    'tokens: loop {
        if cancel.load(Ordering::Acquire) {
            out.stop = StopReason::Cancelled;
            break;
        }
        let token = match next.take() {
            Some(t) => t,
            None => sampler.sample(session.logits())?,
        };
        if let Some(stop) =
            take.token(token, sampler, &mut out, session.len(), session.capacity())?
        {
            out.stop = stop;
            break;
        }
        let room = (session.capacity() - session.len() - 1).min(max_tokens - out.tokens);
        let first = out.first_token.unwrap_or_default();
        let wanted = if start.elapsed() < first + drafts.after {
            0
        } else {
            draft.min(room)
        };
        draft_from_context(session.tokens(), token, wanted, &stop_draft, &mut drafted);
        let t = Instant::now();
        if drafted.is_empty() {
            session.decode(token)?;
            out.decode += t.elapsed();
            continue;
        }
        run.clear();
        run.push(token);
        run.extend_from_slice(&drafted);
        let base = session.len();
        session.run_each(&run)?;
        out.decode += t.elapsed();
        out.drafted += drafted.len();
        // `kept`: the tokens of this pass that are the reply's so far.
        let mut kept = 1;
        for (i, &d) in drafted.iter().enumerate() {
            if cancel.load(Ordering::Acquire) {
                session.keep_each(kept);
                out.stop = StopReason::Cancelled;
                break 'tokens;
            }
            let picked = sampler.sample(session.logits_after(i))?;
            if picked != d {
                next = Some(picked);
                break;
            }
            out.accepted += 1;
            // Taken as if sampled on its own, when the session held `base + kept` tokens; a
            // stop there leaves it out of the session, as it would be.
            if let Some(stop) = take.token(d, sampler, &mut out, base + kept, session.capacity())? {
                session.keep_each(kept);
                out.stop = stop;
                break 'tokens;
            }
            kept += 1;
        }
        session.keep_each(kept);
    }
    // Text still held (an unfinished character, a tag prefix that was not a tag).
    if matches!(
        out.stop,
        StopReason::EndOfText | StopReason::MaxTokens | StopReason::ContextFull
    ) {
        let tail = take.stream.decoder.flush();
        let mut rest = take.stream.think.push(tail).to_string();
        rest.push_str(take.stream.think.flush());
        if !rest.is_empty() {
            let _ = (take.on_piece)(&rest);
        }
    }
    Ok(out)
}

/// What happens to every sampled token, drafted or not.
struct Take<'a> {
    tok: &'a Tokenizer,
    stream: &'a mut TextStream,
    on_piece: &'a mut dyn FnMut(&str) -> ControlFlow<()>,
    on_token: &'a mut dyn FnMut(u32),
    start: Instant,
    max_tokens: usize,
}

impl Take<'_> {
    /// Records `token` (sampled when the session held `len` of `capacity` positions) and
    /// streams its text; `Some` when generation stops with it (the token then stays out of
    /// the session).
    fn token(
        &mut self,
        token: u32,
        sampler: &mut Sampler,
        out: &mut Generated,
        len: usize,
        capacity: usize,
    ) -> Result<Option<StopReason>, LlmError> {
        out.first_token.get_or_insert_with(|| self.start.elapsed());
        if self.tok.is_eog(token) {
            return Ok(Some(StopReason::EndOfText));
        }
        sampler.accept(token);
        (self.on_token)(token);
        out.tokens += 1;
        let piece = self.stream.decoder.push(self.tok, token)?;
        let speak = self.stream.think.push(piece);
        if !speak.is_empty() && (self.on_piece)(speak).is_break() {
            return Ok(Some(StopReason::Stopped));
        }
        if out.tokens >= self.max_tokens {
            return Ok(Some(StopReason::MaxTokens));
        }
        if len >= capacity {
            return Ok(Some(StopReason::ContextFull));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LoadOptions;
    use crate::gguf::GgufFile;
    use crate::model::Model;
    use crate::sampler::SamplerConfig;
    use crate::session::SessionOptions;
    use crate::synth::{SynthQuant, SynthShape, synth_bytes};
    use std::sync::Arc;

    /// The tokens and stop of a reply to `prompt` with `draft`, and the generation record.
    fn reply(
        model: &Arc<Model>,
        prompt: &[u32],
        penalty: f32,
        drafts: Drafts,
        max: usize,
    ) -> (Vec<u32>, Generated) {
        let opts = SessionOptions {
            context: 96,
            threads: 1,
            batch: 16,
        };
        let mut session = Session::new(model.clone(), opts).expect("session");
        session.prefill(prompt).expect("prefill");
        let vocab = model.config().vocab_size;
        let mut sampler = Sampler::new(
            SamplerConfig {
                repeat_penalty: penalty,
                repeat_last_n: 4,
                ..SamplerConfig::greedy()
            },
            vocab,
        )
        .expect("sampler");
        let mut ids = Vec::new();
        let g = generate(
            &mut session,
            &mut sampler,
            &mut TextStream::new(),
            max,
            drafts,
            &AtomicBool::new(false),
            &mut |_| ControlFlow::Continue(()),
            &mut |t| ids.push(t),
        )
        .expect("generate");
        // Every sampled token is in the session but the one sampled when stopping (an
        // end-of-generation token is no reply token).
        let run = if g.stop == StopReason::EndOfText {
            ids.len()
        } else {
            ids.len() - 1
        };
        assert_eq!(session.tokens(), [prompt, &ids[..run]].concat());
        (ids, g)
    }

    /// Drafts change no token of a reply, only how many passes it takes: the tiny random
    /// model falls into loops a draft from the context predicts.
    #[test]
    fn a_reply_with_drafts_is_the_reply_without() {
        let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q8_0, 5).expect("synth");
        let model = Arc::new(
            Model::from_gguf(
                GgufFile::from_bytes(bytes).expect("gguf"),
                LoadOptions::default(),
            )
            .expect("model"),
        );
        // A loop of one token (drafts hold), a loop of several the penalty forces (drafts
        // hold and fail), and a reply that never repeats (drafts fail).
        let cases: [(&[u32], f32, bool); 3] = [
            (&[20, 21, 22, 23, 20, 21, 22, 23, 20, 21], 1.1, true),
            (
                &[
                    20, 21, 22, 23, 808, 939, 904, 771, 157, 754, 34, 278, 20, 21,
                ],
                3.0,
                true,
            ),
            (&[20, 21, 22, 23, 20, 21, 22, 23, 20, 21], 3.0, false),
        ];
        for (prompt, penalty, drafts) in cases {
            let (plain, g0) = reply(&model, prompt, penalty, Drafts::default(), 40);
            assert_eq!((g0.drafted, g0.accepted), (0, 0));
            // Drafts that wait longer than the reply takes never come.
            let later = Drafts {
                tokens: 4,
                after: Duration::from_secs(3600),
            };
            let (same, g) = reply(&model, prompt, penalty, later, 40);
            assert_eq!((same, g.drafted), (plain.clone(), 0));
            for tokens in [1, 3, Session::EACH_MAX - 1, 50] {
                let draft = Drafts {
                    tokens,
                    after: Duration::ZERO,
                };
                let (with, g) = reply(&model, prompt, penalty, draft, 40);
                assert_eq!(with, plain, "draft {tokens}");
                assert_eq!(g.stop, g0.stop);
                assert!(g.drafted > 0, "draft {tokens}: {g:?}");
                assert!(g.accepted <= g.drafted && (g.accepted > 0) == drafts);
            }
            // A reply that stops on a drafted token: the session holds what came before it.
            let four = Drafts {
                tokens: 4,
                after: Duration::ZERO,
            };
            let (short, _) = reply(&model, prompt, penalty, four, 7);
            assert_eq!(short, plain[..7]);
        }
    }
}
