//! Adapter over `pocket-llm`'s `ChatSession` (KV prefix reuse, context trimming, think
//! filtering and heard-text truncation all come from the engine), plus the voice policy: the
//! system prompt, the sampler and how long a spoken reply may get. It also watches the model
//! file: the engine runs on a copy made at load (`LoadOptions::detach`), so a file truncated
//! or replaced meanwhile cannot crash it, and the user is told once that it changed.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};

use pocket_llm::chat::HistoryPolicy;
use pocket_llm::sampler::SamplerConfig;
use pocket_llm::{ChatSession, Drafts, LlmError, LoadOptions, Model, SessionConfig};

use super::{ChatEngine, EngineError, EngineResult, ReplyEnd};

/// The system prompt of the voice assistant. Chosen by trying 13 spoken questions on
/// SmolLM2-135M Q4_1 (see docs/ARCHITECTURE.md, "Voice replies"): naming the assistant or
/// asking for "spoken sentences" tipped it into French; this wording kept every answer English.
pub const VOICE_SYSTEM_PROMPT: &str = "You are a helpful assistant that speaks English. Give \
short, direct answers of one sentence.";

/// How the voice chat runs its model.
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceChatConfig {
    pub system_prompt: String,
    pub sampler: SamplerConfig,
    /// Longest reply in tokens.
    pub max_reply_tokens: usize,
    /// The reply stops after this many sentences (spoken answers stay short).
    pub max_sentences: usize,
    /// KV-cache positions; older turns are dropped when the conversation outgrows it. 1024:
    /// a turn the voice chat runs holds the system prompt, the last exchange, the user's words
    /// (at most `EndpointConfig::max_utterance`, 20 s, ~90 tokens) and a reply of at most
    /// `max_reply_tokens`: a few hundred tokens. 2048 held twice the memory for nothing
    /// (Qwen2.5-Coder-1.5B's f16 cache: 59 MB -> 29 MB).
    pub context: usize,
    /// Which earlier turns the model sees. The last exchange only, chosen on the 112-question
    /// set (bench/questions.tsv, text mode, SmolLM2-135M; docs/PERFORMANCE.md): keyword
    /// accuracy 67.9% with the last exchange, 66.1% with none, 61.6% with the last three,
    /// 58.0% with 256 tokens, 23.2% with all that fit — with more history the small model
    /// copies its own earlier answers ("The largest animal in the world is ..." to every
    /// later question). One exchange still lets a follow-up ("and Germany?") work.
    pub history: HistoryPolicy,
    /// A reply never repeats a 4-token run of the reply before it (0: off): in one ongoing
    /// spoken session SmolLM2 otherwise answered 47 of 112 questions with the start of its
    /// previous answer ("The answer for this question would depend on the context ..."). A
    /// question asked again is exempt: the rule forced "There are 7 days in a week." to be
    /// followed by "There are 52 weeks in a year." for the same question.
    pub avoid_copy_ngram: usize,
    /// A reply never opens with the user's first this-many words: echoing a misheard question
    /// set the 1.5B echoing the next, well-heard ones from its own example (eight turns in a
    /// row in one 120-turn spoken session, five in another).
    pub avoid_echo_words: usize,
    /// Tokens drafted from the conversation that a reply token takes with it, checked in the
    /// same pass ([`SessionConfig::drafts`]; 0: off). Up to 4, from 300 ms after the first
    /// token: the first spoken piece is due 150 ms after it (cut at the next word), so drafts,
    /// which make a pass longer when they fail, come after that piece. docs/PERFORMANCE.md,
    /// "Drafts".
    pub drafts: Drafts,
    /// Compute threads.
    pub threads: usize,
}

impl Default for VoiceChatConfig {
    /// Greedy decoding with a mild repetition penalty: on the trial questions it answered as
    /// well as low-temperature sampling (0.2-0.3, top-p 0.9) did on its best seed, and never
    /// depends on a seed; the penalty stops the loops plain greedy decoding falls into.
    fn default() -> Self {
        Self {
            system_prompt: VOICE_SYSTEM_PROMPT.to_string(),
            sampler: SamplerConfig {
                repeat_penalty: 1.1,
                repeat_last_n: 64,
                ..SamplerConfig::greedy()
            },
            max_reply_tokens: 64,
            max_sentences: 2,
            context: 1024,
            history: HistoryPolicy::LastTurns(1),
            avoid_copy_ngram: 4,
            avoid_echo_words: 3,
            drafts: Drafts {
                tokens: 4,
                after: Duration::from_millis(300),
            },
            threads: 2,
        }
    }
}

/// A voice chat with a local GGUF model.
pub struct LlmChat {
    chat: ChatSession,
    max_sentences: usize,
    /// The model file and how it looked when loaded (or last reported).
    file: Option<(PathBuf, Option<FileStamp>)>,
}

/// What tells a file apart from a changed one: size, modification time, inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

impl FileStamp {
    fn of(path: &Path) -> Option<Self> {
        let m = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&m);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Self {
            len: m.len(),
            modified: m.modified().ok(),
            inode,
        })
    }
}

/// Loads `gguf` as the voice loop runs it: logits for the tokens a voice can say only
/// ([`LoadOptions::speakable_only`]), so a reply never holds CJK or emoji tokens the voice
/// cannot read out, and an untied output projection (Qwen2.5's) keeps about two thirds of its
/// rows: less memory, fewer bytes read per token.
pub fn load_voice_model(gguf: &Path) -> Result<Arc<Model>, LlmError> {
    let opts = LoadOptions {
        speakable_only: true,
        ..LoadOptions::default()
    };
    Model::load_with(gguf, opts)
}

impl LlmChat {
    /// The model this chat runs (shared, e.g. with a [`pocket_llm::TextScorer`]).
    pub fn model(&self) -> &Arc<Model> {
        self.chat.session().model()
    }

    /// Loads `gguf` with the default voice settings on `threads` threads.
    pub fn load(gguf: &Path, threads: usize) -> EngineResult<Self> {
        Self::load_with(
            gguf,
            VoiceChatConfig {
                threads: threads.max(1),
                ..VoiceChatConfig::default()
            },
        )
    }

    /// Loads `gguf` with `cfg`.
    pub fn load_with(gguf: &Path, cfg: VoiceChatConfig) -> EngineResult<Self> {
        let stamp = FileStamp::of(gguf);
        let model = load_voice_model(gguf).map_err(EngineError::new)?;
        let mut chat = Self::new(model, cfg)?;
        chat.file = Some((gguf.to_path_buf(), stamp));
        Ok(chat)
    }

    /// A chat on an already loaded model.
    pub fn new(model: Arc<Model>, cfg: VoiceChatConfig) -> EngineResult<Self> {
        let session = SessionConfig {
            system_prompt: Some(cfg.system_prompt),
            max_context: cfg.context,
            threads: cfg.threads.max(1),
            sampler: cfg.sampler,
            thinking: false,
            max_reply_tokens: cfg.max_reply_tokens,
            history: cfg.history,
            avoid_copy_ngram: cfg.avoid_copy_ngram,
            avoid_echo_words: cfg.avoid_echo_words,
            drafts: cfg.drafts,
        };
        Ok(Self {
            chat: ChatSession::new(model, session).map_err(EngineError::new)?,
            max_sentences: cfg.max_sentences.max(1),
            file: None,
        })
    }
}

impl ChatEngine for LlmChat {
    fn prepare(&mut self) -> EngineResult<()> {
        self.chat.prime().map(|_| ()).map_err(EngineError::new)
    }

    fn prefill_user(&mut self, user_text: &str) -> EngineResult<()> {
        self.chat
            .prefill_user(user_text, &AtomicBool::new(false))
            .map(|_| ())
            .map_err(EngineError::new)
    }

    fn turn_end_probability(&mut self, user_text: &str) -> EngineResult<Option<f32>> {
        self.chat
            .turn_end_probability(user_text, &AtomicBool::new(false))
            .map_err(EngineError::new)
    }

    fn reply(
        &mut self,
        user_text: &str,
        cancel: &AtomicBool,
        on_piece: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> EngineResult<ReplyEnd> {
        let mut ends = SentenceEnds::new(self.max_sentences);
        let mut said = String::new();
        let mut capped = false;
        let out = self
            .chat
            .reply(user_text, cancel, &mut |piece| {
                if ends.stops_before(piece) {
                    capped = true;
                    return ControlFlow::Break(());
                }
                said.push_str(piece);
                on_piece(piece)
            })
            .map_err(|e| match e {
                LlmError::ContextFull { tokens, max } => EngineError(format!(
                    "your turn is too long for the model: with room for the reply it needs \
                     {tokens} tokens, the context holds {max}; say it in shorter parts"
                )),
                e => EngineError::new(e),
            })?;
        if capped {
            // The piece that began the sentence past the cap was not spoken: the history
            // keeps exactly what was.
            self.chat.truncate_last_reply(said.trim_end());
            return Ok(ReplyEnd::Complete);
        }
        Ok(if out.cancelled {
            ReplyEnd::Cancelled
        } else {
            ReplyEnd::Complete
        })
    }

    fn truncate_last_reply(&mut self, heard: &str) {
        self.chat.truncate_last_reply(heard);
    }

    fn forget_last_exchange(&mut self) {
        self.chat.forget_last_exchange();
    }

    fn reset(&mut self) {
        self.chat.reset();
    }

    fn notice(&mut self) -> Option<String> {
        let (path, stamp) = self.file.as_mut()?;
        let now = FileStamp::of(path);
        if now == *stamp {
            return None;
        }
        let what = match (*stamp, now) {
            (_, None) => "removed or unreadable".to_string(),
            (Some(was), Some(now)) if was.len != now.len => {
                format!("{} bytes, was {}", now.len, was.len)
            }
            _ => "rewritten".to_string(),
        };
        *stamp = now;
        Some(format!(
            "the model file {} changed on disk ({what}); the model loaded at start keeps \
             answering: restart to use the new file, or run `pocket assets fetch` to repair it",
            path.display()
        ))
    }

    fn history(&self) -> Vec<pocket_llm::chat::Message> {
        self.chat.history().to_vec()
    }
}

/// Counts sentence ends in streamed text: a piece ending in `.`, `!` or `?` (closing quotes
/// or brackets may follow) ends a sentence once the next piece starts with white space —
/// so "3.5" or "e.g." inside a word never count.
struct SentenceEnds {
    max: usize,
    seen: usize,
    open_end: bool,
}

impl SentenceEnds {
    fn new(max: usize) -> Self {
        Self {
            max,
            seen: 0,
            open_end: false,
        }
    }

    /// True when `piece` starts a sentence past the limit (it must not be spoken).
    fn stops_before(&mut self, piece: &str) -> bool {
        if self.open_end && piece.starts_with(char::is_whitespace) {
            self.seen += 1;
            if self.seen >= self.max {
                return true;
            }
        }
        if !piece.is_empty() {
            let tail = piece.trim_end_matches(['"', '\'', ')', ']', '”', '’']);
            self.open_end = tail.ends_with(['.', '!', '?']);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(pieces: &[&str], max: usize) -> String {
        let mut ends = SentenceEnds::new(max);
        pieces
            .iter()
            .take_while(|p| !ends.stops_before(p))
            .copied()
            .collect()
    }

    #[test]
    fn replies_stop_after_the_sentence_limit_but_not_inside_numbers() {
        let pieces = [
            "It", " is", " 3", ".", "5", " km", ".", " Then", " more", "!\"", " And", " on",
        ];
        assert_eq!(cut(&pieces, 1), "It is 3.5 km.");
        assert_eq!(cut(&pieces, 2), "It is 3.5 km. Then more!\"");
        assert_eq!(cut(&pieces, 5), pieces.concat());
        // A newline after a sentence ends it too.
        assert_eq!(cut(&["Yes", ".", "\n", "No"], 1), "Yes.");
    }
}
