//! Adapter over `pocket-llm`: a voice chat on the engine's low-level `Session` — ChatML prompt
//! from the model's template, KV-cache prefix reuse across turns, streamed detokenization with
//! thinking removed, short spoken replies, and "keep only what was heard" in the history.
//! (When `pocket-llm` grows its own chat session, this adapter becomes a thin wrapper of it.)

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pocket_llm::chat::{ChatOptions, ChatTemplate, Message, ThinkFilter};
use pocket_llm::sampler::{Sampler, SamplerConfig};
use pocket_llm::tokenizer::StreamDecoder;
use pocket_llm::{Model, Session, SessionOptions};

use super::{ChatEngine, EngineError, EngineResult, ReplyEnd};

/// The system prompt of the voice assistant.
pub const VOICE_SYSTEM_PROMPT: &str = "You are Pocket, a friendly voice assistant. Answer in one \
or two short spoken sentences. Do not use lists, markdown or emoji.";

/// Context of the session in tokens (a voice chat stays short; old turns are dropped).
const CONTEXT: usize = 2048;
/// Longest reply in tokens.
const MAX_REPLY_TOKENS: usize = 96;

/// A chat with a local GGUF model.
pub struct LlmChat {
    model: Arc<Model>,
    session: Session,
    template: ChatTemplate,
    sampler: Sampler,
    messages: Vec<Message>,
    decoder: StreamDecoder,
    think: ThinkFilter,
    prompt: String,
}

impl LlmChat {
    /// Loads `gguf` and starts a conversation with the voice system prompt.
    pub fn load(gguf: &Path, threads: usize) -> EngineResult<Self> {
        let model = Model::load(gguf).map_err(EngineError::new)?;
        let template =
            ChatTemplate::from_template_text(model.chat_template()).map_err(EngineError::new)?;
        let session = Session::new(
            model.clone(),
            SessionOptions {
                context: CONTEXT,
                threads: threads.max(1),
                batch: 128,
            },
        )
        .map_err(EngineError::new)?;
        let cfg = SamplerConfig {
            repeat_penalty: 1.1,
            ..SamplerConfig::greedy()
        };
        let sampler = Sampler::new(cfg, model.config().vocab_size).map_err(EngineError::new)?;
        Ok(Self {
            model,
            session,
            template,
            sampler,
            messages: vec![Message::system(VOICE_SYSTEM_PROMPT)],
            decoder: StreamDecoder::new(),
            think: ThinkFilter::new(),
            prompt: String::new(),
        })
    }

    /// Tokens of the prompt for the current history, dropping the oldest exchanges until the
    /// prompt and a full reply fit the context.
    fn prompt_tokens(&mut self) -> Vec<u32> {
        loop {
            self.prompt.clear();
            self.template
                .render_into(&self.messages, ChatOptions::default(), &mut self.prompt);
            let tokens = self.model.tokenizer().encode(&self.prompt, true);
            if tokens.len() + MAX_REPLY_TOKENS <= self.session.capacity()
                || self.messages.len() <= 2
            {
                return tokens;
            }
            self.messages.remove(1);
        }
    }
}

impl ChatEngine for LlmChat {
    fn reply(
        &mut self,
        user_text: &str,
        cancel: &AtomicBool,
        on_piece: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> EngineResult<ReplyEnd> {
        self.messages.push(Message::user(user_text));
        let tokens = self.prompt_tokens();
        // Reuse the KV cache of the common prefix (system prompt and earlier turns); at least
        // one token is run so there are logits to sample from.
        let common = self
            .session
            .tokens()
            .iter()
            .zip(&tokens)
            .take_while(|(a, b)| a == b)
            .count()
            .min(tokens.len().saturating_sub(1));
        self.session.truncate(common);
        self.sampler.reset();
        self.decoder.reset();
        self.think.reset();
        let mut reply = String::new();
        let mut end = ReplyEnd::Complete;
        let mut next = {
            let logits = self
                .session
                .prefill(&tokens[common..])
                .map_err(EngineError::new)?;
            self.sampler.sample(logits).map_err(EngineError::new)?
        };
        for _ in 0..MAX_REPLY_TOKENS {
            if cancel.load(Ordering::Acquire) {
                end = ReplyEnd::Cancelled;
                break;
            }
            let tok = self.model.tokenizer();
            if tok.is_eog(next) {
                break;
            }
            self.sampler.accept(next);
            let text = self.decoder.push(tok, next).map_err(EngineError::new)?;
            let speak = self.think.push(text);
            if !speak.is_empty() {
                reply.push_str(speak);
                if on_piece(speak).is_break() {
                    end = ReplyEnd::Cancelled;
                    break;
                }
            }
            let logits = self.session.decode(next).map_err(EngineError::new)?;
            next = self.sampler.sample(logits).map_err(EngineError::new)?;
        }
        if end == ReplyEnd::Complete {
            let rest = self.decoder.flush().to_string();
            let mut tail = self.think.push(&rest).to_string();
            tail.push_str(self.think.flush());
            if !tail.is_empty() {
                reply.push_str(&tail);
                let _ = on_piece(&tail);
            }
        }
        self.messages.push(Message::assistant(reply.trim()));
        Ok(end)
    }

    fn truncate_last_reply(&mut self, heard: &str) {
        if matches!(self.messages.last(), Some(m) if m.role == pocket_llm::chat::Role::Assistant) {
            self.messages.pop();
            if !heard.trim().is_empty() {
                self.messages.push(Message::assistant(heard.trim()));
            }
        }
    }

    fn reset(&mut self) {
        self.messages.truncate(1);
        self.session.clear();
    }
}
