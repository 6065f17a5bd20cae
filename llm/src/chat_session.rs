//! A chat conversation over one [`Session`]. The session keeps a token transcript of the
//! conversation exactly as it was run (generated replies as their own tokens), so a new turn
//! appends only its suffix (in the model's turn format) and runs just those tokens: the system prompt and earlier
//! turns are computed once. Which earlier turns the model sees is a [`HistoryPolicy`]; when
//! turns must go (the policy, or a full context), the oldest are removed from the transcript
//! and from the KV cache in place ([`Session::remove`]), never by running the kept turns
//! again, so a turn costs the same at turn 200 as at turn 20. The new user turn is never
//! dropped. Replies stream as speakable text; an interrupted reply can be cut back to what
//! the user heard.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::LlmError;
use crate::chat::history::{turns_to_drop, user_turn_starts};
use crate::chat::{
    ChatOptions, ChatTemplate, HistoryPolicy, Message, Role, echo_openings, same_question,
};
use crate::generate::{Drafts, StopReason, TextStream, generate};
use crate::model::Model;
use crate::sampler::{Sampler, SamplerConfig};
use crate::session::{Session, SessionOptions};

mod turn_end;

/// Settings of a [`ChatSession`].
#[derive(Clone, Debug, PartialEq)]
pub struct SessionConfig {
    /// The system prompt; `None` uses the model template's default (if it has one).
    pub system_prompt: Option<String>,
    /// Positions of the KV cache (capped at the model's training context).
    pub max_context: usize,
    /// Compute threads (0 = one per CPU).
    pub threads: usize,
    pub sampler: SamplerConfig,
    /// Let Qwen3-style models think before answering (the thoughts are never returned).
    pub thinking: bool,
    /// Longest reply, in tokens.
    pub max_reply_tokens: usize,
    /// Which earlier turns the model sees.
    pub history: HistoryPolicy,
    /// A reply never repeats an n-gram of this many tokens from the reply before it (0: off;
    /// see [`Sampler::avoid_ngrams_of`](crate::Sampler::avoid_ngrams_of)), unless the user
    /// asks the same question again ([`same_question`]): that gets the same answer.
    pub avoid_copy_ngram: usize,
    /// A reply never opens with the user's first this-many words (0: off; see
    /// [`Sampler::avoid_openings`](crate::Sampler::avoid_openings) and
    /// [`echo_openings`](crate::chat::echo_openings)).
    pub avoid_echo_words: usize,
    /// Tokens drafted from the conversation that go with a token the reply samples, checked
    /// in the same pass (off by default; see [`generate`]). The reply is the same; passes are
    /// saved where it restates words of the conversation.
    pub drafts: Drafts,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            system_prompt: None,
            max_context: 4096,
            threads: 0,
            sampler: SamplerConfig::default(),
            thinking: false,
            max_reply_tokens: 512,
            history: HistoryPolicy::AllThatFit,
            avoid_copy_ngram: 0,
            avoid_echo_words: 0,
            drafts: Drafts::default(),
        }
    }
}

/// Durations of one reply.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReplyTimings {
    /// Templating, tokenizing and running the new prompt tokens.
    pub prefill: Duration,
    /// From the call to the first generated token.
    pub first_token: Duration,
    /// Running the generated tokens.
    pub decode: Duration,
    pub total: Duration,
}

/// The result of [`ChatSession::reply`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReplyOutcome {
    /// The speakable reply text (no think content), as streamed.
    pub text: String,
    /// Tokens generated.
    pub tokens: usize,
    /// Stopped by the cancellation flag or the piece callback.
    pub cancelled: bool,
    /// Prompt tokens run this turn (those not already in the cache).
    pub prefill_tokens: usize,
    /// Earlier turns dropped before this one (the history policy, or room in the context).
    pub dropped_turns: usize,
    pub timings: ReplyTimings,
}

/// A conversation with a model: history, KV cache, sampler.
#[derive(Debug)]
pub struct ChatSession {
    session: Session,
    template: ChatTemplate,
    /// The text each user turn starts with in this template.
    user_header: String,
    system: Option<String>,
    history: Vec<Message>,
    sampler: Sampler,
    stream: TextStream,
    cfg: SessionConfig,
    prompt: String,
    tokens: Vec<u32>,
    /// The new turn's suffix (closing the last reply, the user turn, the generation
    /// prompt), before it joins `tokens`.
    suffix: Vec<u32>,
    /// The number tokens ([`number_ids`](crate::tokenizer::Tokenizer::number_ids)): the copy
    /// rule never bans an n-gram holding one.
    numbers: Vec<u32>,
    /// The openings of the user's words a reply may not echo, one after another, and where
    /// each ends.
    echo: Vec<u32>,
    echo_ends: Vec<usize>,
    /// The conversation as run: system, turns, the last reply's tokens. Empty = render anew.
    transcript: Vec<u32>,
    /// Where the last reply's tokens start in `transcript` (it ends with that reply, open).
    reply_start: Option<usize>,
    generated: Vec<u32>,
    /// The user's words of the last reply (whatever the history policy keeps of them).
    last_question: String,
    /// How to take the last exchange back ([`forget_last_exchange`](Self::forget_last_exchange)).
    undo: Option<Undo>,
}

/// The conversation as it was before the last user turn joined it.
#[derive(Clone, Copy, Debug)]
struct Undo {
    transcript_len: usize,
    reply_start: Option<usize>,
    history_len: usize,
}

impl ChatSession {
    pub fn new(model: Arc<Model>, cfg: SessionConfig) -> Result<ChatSession, LlmError> {
        let template = ChatTemplate::of_model(model.gguf().metadata(), model.tokenizer())?;
        let sampler = Sampler::new(cfg.sampler, model.config().vocab_size)?;
        // Only the copy rule needs them (a scan of the vocabulary).
        let numbers = if cfg.avoid_copy_ngram > 0 {
            model.tokenizer().number_ids()
        } else {
            Vec::new()
        };
        if cfg.max_reply_tokens == 0 {
            return Err(LlmError::InvalidSession {
                reason: "max_reply_tokens must be at least 1".into(),
            });
        }
        let session = Session::new(
            model,
            SessionOptions {
                context: cfg.max_context,
                threads: cfg.threads,
                batch: 128,
            },
        )?;
        Ok(ChatSession {
            session,
            user_header: template.user_header(),
            template,
            system: cfg.system_prompt.clone(),
            history: Vec::new(),
            sampler,
            stream: TextStream::new(),
            cfg,
            prompt: String::new(),
            tokens: Vec::new(),
            suffix: Vec::new(),
            numbers,
            echo: Vec::new(),
            echo_ends: Vec::new(),
            transcript: Vec::new(),
            reply_start: None,
            generated: Vec::new(),
            last_question: String::new(),
            undo: None,
        })
    }

    /// The conversation so far (without the system prompt).
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The underlying session (tokens in the cache, capacity).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Runs the system prompt (and any history) now, so the first reply only runs the
    /// user's words.
    pub fn prime(&mut self) -> Result<usize, LlmError> {
        if !self.transcript.is_empty() {
            return Ok(0);
        }
        self.render_transcript(self.history.len());
        let tokens = std::mem::take(&mut self.transcript);
        let r = self.sync_cache(&tokens, &AtomicBool::new(false));
        self.transcript = tokens;
        r
    }

    /// Runs a likely next user turn through the model ahead of time (e.g. the recognizer's
    /// early transcript while it waits to be sure the user has stopped), without adding it to
    /// the history. A [`reply`](Self::reply) to the same words then only runs its last token;
    /// to other words it reuses the common prefix. Old turns the history policy drops before
    /// that turn are dropped now. Does nothing (returns 0) before [`prime`](Self::prime) or
    /// when the turn cannot fit. Returns the tokens run.
    pub fn prefill_user(
        &mut self,
        user_text: &str,
        cancel: &AtomicBool,
    ) -> Result<usize, LlmError> {
        if self.transcript.is_empty() || self.make_room(user_text).is_err() {
            return Ok(0);
        }
        let tokens = std::mem::take(&mut self.tokens);
        let r = self.sync_cache(&tokens, cancel);
        self.tokens = tokens;
        r
    }

    /// Adds `user_text` as a user turn and streams the model's reply: `on_piece` gets
    /// speakable text pieces as they are decoded (returning `Break` stops the reply), and
    /// `cancel` is checked before every token. The reply joins the history (as far as it
    /// got).
    pub fn reply(
        &mut self,
        user_text: &str,
        cancel: &AtomicBool,
        on_piece: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> Result<ReplyOutcome, LlmError> {
        let start = Instant::now();
        if self.transcript.is_empty() {
            self.render_transcript(self.history.len());
        }
        self.undo = None;
        let asked_again = same_question(&self.last_question, user_text);
        self.last_question.clear();
        self.last_question.push_str(user_text);
        let dropped = self.make_room(user_text)?;
        self.undo = Some(Undo {
            transcript_len: self.transcript.len(),
            reply_start: self.reply_start,
            history_len: self.history.len(),
        });
        self.history.push(Message::user(user_text));
        let tokens = std::mem::take(&mut self.tokens);
        let prefilled = self.sync_cache(&tokens, cancel);
        let prompt_len = tokens.len();
        self.tokens = tokens;
        let prefill_tokens = prefilled?;
        let prefill = start.elapsed();
        let mut text = String::new();
        let mut outcome = ReplyOutcome {
            text: String::new(),
            tokens: 0,
            cancelled: false,
            prefill_tokens,
            dropped_turns: dropped,
            timings: ReplyTimings {
                prefill,
                ..ReplyTimings::default()
            },
        };
        self.transcript.clone_from(&self.tokens);
        self.reply_start = Some(prompt_len);
        if self.session.len() < prompt_len {
            // Cancelled during the prompt: nothing generated, the user turn stays.
            outcome.cancelled = true;
            self.history.push(Message::assistant(""));
            outcome.timings.total = start.elapsed();
            return Ok(outcome);
        }
        self.sampler.reset();
        let window = self.sampler.config().repeat_last_n.min(prompt_len);
        for &t in &self.tokens[prompt_len - window..] {
            self.sampler.accept(t);
        }
        // `generated` still holds the previous reply's tokens. The same question asked again
        // gets the same answer: the rule against copying stands aside.
        let avoid_n = if asked_again {
            0
        } else {
            self.cfg.avoid_copy_ngram
        };
        // Runs holding a number are exempt: a fact is no copied phrasing, and a ban there
        // changes the answer ("A century is 100 years." then "A decade is 12 years.": the "0"
        // after " is 1" was banned) or glues words ("10years": " years" after "10" banned).
        self.sampler
            .avoid_ngrams_of(&self.generated, avoid_n, &self.numbers);
        // Never an echo of the user's words, asked again or not.
        self.echo.clear();
        self.echo_ends.clear();
        if self.cfg.avoid_echo_words > 0 {
            let model = self.session.model().clone();
            echo_openings(
                model.tokenizer(),
                user_text,
                self.cfg.avoid_echo_words,
                &mut self.echo,
                &mut self.echo_ends,
            );
        }
        self.sampler.avoid_openings(&self.echo, &self.echo_ends);
        self.stream
            .reset(self.cfg.thinking && self.template.supports_thinking());
        let room = self.session.capacity().saturating_sub(self.session.len());
        let max = self.cfg.max_reply_tokens.min(room);
        let mut ids = std::mem::take(&mut self.generated);
        ids.clear();
        let generated = generate(
            &mut self.session,
            &mut self.sampler,
            &mut self.stream,
            max,
            self.cfg.drafts,
            cancel,
            &mut |piece| {
                text.push_str(piece);
                on_piece(piece)
            },
            &mut |id| ids.push(id),
        );
        // The reply joins the transcript with every sampled token, run or not.
        self.transcript.extend_from_slice(&ids);
        self.generated = ids;
        let generated = generated?;
        outcome.tokens = generated.tokens;
        outcome.cancelled = matches!(generated.stop, StopReason::Cancelled | StopReason::Stopped);
        outcome.timings.first_token = prefill + generated.first_token.unwrap_or_default();
        outcome.timings.decode = generated.decode;
        outcome.timings.total = start.elapsed();
        self.history.push(Message::assistant(text.clone()));
        outcome.text = text;
        Ok(outcome)
    }

    /// Cuts the last assistant turn down to `heard`, the part of the reply the user actually
    /// heard before interrupting, so the next turn's context holds only that.
    pub fn truncate_last_reply(&mut self, heard: &str) {
        let Some(m) = self
            .history
            .last_mut()
            .filter(|m| m.role == Role::Assistant)
        else {
            return;
        };
        m.content = heard.to_string();
        match self.reply_start {
            Some(at) if at <= self.transcript.len() => {
                self.transcript.truncate(at);
                let model = self.session.model().clone();
                model
                    .tokenizer()
                    .encode_into(heard, false, false, &mut self.transcript);
            }
            _ => self.transcript.clear(),
        }
    }

    /// Takes the last [`reply`](Self::reply) back: its user turn and reply leave the history
    /// and the transcript as if never said (a reply made ahead of time that the user never
    /// heard). The cache keeps the common prefix, so the next turn runs only its own tokens.
    /// Turns the history policy dropped to make room for it stay dropped (the next turn would
    /// drop them too). Returns `false` (and changes nothing) when there is no reply to take
    /// back: none yet, already taken back, or the conversation was reset since.
    pub fn forget_last_exchange(&mut self) -> bool {
        let Some(undo) = self.undo.take() else {
            return false;
        };
        if undo.history_len > self.history.len() || undo.transcript_len > self.transcript.len() {
            return false;
        }
        if self.transcript.is_empty() {
            // To be rendered anew from the history (an unknown cut): nothing else to undo.
            self.reply_start = None;
        } else {
            self.transcript.truncate(undo.transcript_len);
            self.reply_start = undo.reply_start;
        }
        self.history.truncate(undo.history_len);
        true
    }

    /// Forgets the conversation (the system prompt stays).
    pub fn reset(&mut self) {
        self.undo = None;
        self.last_question.clear();
        // The previous reply is forgotten too: the next one must not avoid its phrases.
        self.generated.clear();
        self.history.clear();
        self.session.clear();
        self.sampler.reset();
        self.transcript.clear();
        self.reply_start = None;
    }

    /// Gets the transcript ready for a turn of `user_text`: drops the oldest turns the
    /// history policy (or the context's room) asks to, from the transcript, the history and
    /// the KV cache alike, and builds `self.tokens` = transcript + the new turn's suffix.
    /// Returns how many turns were dropped; on `ContextFull` (the turn does not fit even
    /// alone) nothing has changed.
    fn make_room(&mut self, user_text: &str) -> Result<usize, LlmError> {
        self.build_suffix(user_text);
        let capacity = self.session.capacity();
        let reserve = self.cfg.max_reply_tokens.min(capacity / 2).max(1);
        let starts = self.turn_starts();
        let len = self.transcript.len();
        let incoming = self.suffix.len();
        let drop = turns_to_drop(self.cfg.history, &starts, len, incoming, reserve, capacity)
            .ok_or(LlmError::ContextFull {
                tokens: starts.first().map_or(len, |&s| s) + incoming + reserve,
                max: capacity,
            })?;
        if drop > 0 {
            let from = starts[0];
            let to = starts.get(drop).copied().unwrap_or(len);
            self.drop_span(from, to, drop);
            // The dropped turns may have taken the open reply with them.
            self.build_suffix(user_text);
        }
        self.tokens.clone_from(&self.transcript);
        self.tokens.extend_from_slice(&self.suffix);
        Ok(drop)
    }

    /// Removes `transcript[from..to]`, the oldest `turns` user turns with their replies, from
    /// the transcript, the history and the cache (in place, keys re-rotated: nothing is run).
    fn drop_span(&mut self, from: usize, to: usize, turns: usize) {
        let cached = common_prefix(self.session.tokens(), &self.transcript);
        if cached >= to && self.session.remove(from, to).is_ok() {
            self.session.truncate(cached - (to - from));
        } else {
            self.session.truncate(cached.min(from));
        }
        self.transcript.drain(from..to);
        self.reply_start = self
            .reply_start
            .and_then(|r| r.checked_sub(to - from).filter(|_| r >= to));
        // Up to the first kept user turn (the `turns`-th, counting from 0).
        let upto = self
            .history
            .iter()
            .enumerate()
            .filter(|(_, m)| m.role == Role::User)
            .nth(turns)
            .map_or(self.history.len(), |(i, _)| i);
        self.history.drain(..upto);
        // A reply still to be taken back lies after the dropped span: it moves with it.
        self.undo = self.undo.and_then(|u| {
            Some(Undo {
                transcript_len: u
                    .transcript_len
                    .checked_sub(to - from)
                    .filter(|_| u.transcript_len >= to)?,
                reply_start: u
                    .reply_start
                    .and_then(|r| r.checked_sub(to - from).filter(|_| r >= to)),
                history_len: u.history_len.checked_sub(upto)?,
            })
        });
    }

    /// Where each user turn starts in the transcript: where its tokens spell the template's
    /// user header (it may span several tokens in a byte-level vocabulary).
    fn turn_starts(&self) -> Vec<usize> {
        let model = self.session.model();
        let tokenizer = model.tokenizer();
        user_turn_starts(&self.transcript, self.user_header.as_bytes(), |id| {
            tokenizer.piece(id, true).ok()
        })
    }

    /// The suffix of a new user turn into `self.suffix`: the open reply's end (if any), the
    /// user turn, the generation prompt.
    fn build_suffix(&mut self, user_text: &str) {
        self.prompt.clear();
        if self.reply_start.is_some() {
            self.template.turn_end_into(&mut self.prompt);
        }
        self.template
            .turn_into(Role::User, user_text, &mut self.prompt);
        self.template
            .generation_prompt_into(self.cfg.thinking, &mut self.prompt);
        self.suffix.clear();
        let model = self.session.model().clone();
        model
            .tokenizer()
            .encode_into(&self.prompt, false, true, &mut self.suffix);
    }

    /// Renders the system prompt and the first `messages` of the history (every reply
    /// closed) into the transcript.
    fn render_transcript(&mut self, messages: usize) {
        self.prompt.clear();
        let mut all: Vec<Message> = Vec::with_capacity(messages + 1);
        if let Some(s) = &self.system {
            all.push(Message::system(s.clone()));
        }
        all.extend(self.history[..messages].iter().cloned());
        let opts = ChatOptions {
            add_generation_prompt: false,
            enable_thinking: self.cfg.thinking,
        };
        self.template.render_into(&all, opts, &mut self.prompt);
        self.transcript.clear();
        let model = self.session.model().clone();
        model
            .tokenizer()
            .encode_into(&self.prompt, true, true, &mut self.transcript);
        self.reply_start = None;
    }

    /// Makes the cache hold `tokens`: keeps the common prefix, runs the rest in batches
    /// (checking `cancel` between them). Returns how many tokens were run.
    fn sync_cache(&mut self, tokens: &[u32], cancel: &AtomicBool) -> Result<usize, LlmError> {
        let common = common_prefix(self.session.tokens(), tokens);
        // Re-run at least the last token so the logits belong to this prompt.
        let keep = common.min(tokens.len().saturating_sub(1));
        self.session.truncate(keep);
        let mut ran = 0;
        for chunk in tokens[keep..].chunks(128) {
            if cancel.load(Ordering::Acquire) {
                break;
            }
            self.session.prefill(chunk)?;
            ran += chunk.len();
        }
        Ok(ran)
    }
}

/// How many leading tokens `a` and `b` share.
fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
