//! The engine seams the actors drive: speech detection, recognition, chat, segmentation and
//! synthesis. Each is synchronous (`&mut self`) and runs on its actor's own thread; adapters for
//! the real crates live beside this file, mock engines only in the unit tests.

use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// An engine failure, as text the UI can show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EngineError(pub String);

impl EngineError {
    pub fn new(e: impl std::fmt::Display) -> Self {
        Self(e.to_string())
    }
}

pub type EngineResult<T> = Result<T, EngineError>;

/// Frame-level voice activity at 16 kHz.
pub trait SpeechDetector: Send {
    /// Samples per frame it wants (e.g. 256 for 16 ms).
    fn frame_len(&self) -> usize;
    /// Probability in [0, 1] that `frame` (exactly `frame_len` samples) holds speech.
    fn speech_probability(&mut self, frame: &[f32]) -> f32;
    /// Forgets all state (a new conversation).
    fn reset(&mut self);
}

/// Speech to text for one utterance at a time, 16 kHz mono.
pub trait Transcriber: Send {
    /// Starts a new utterance, dropping the previous one.
    fn begin(&mut self);
    /// The utterance just begun is spoken over the assistant's reply, where a backchannel or a
    /// short command is likely: a recognizer that can be told so decodes it expecting them.
    fn over_reply(&mut self) {}
    /// The utterance just begun goes on from the last finished one (the user spoke again right
    /// after a turn ended at a pause they meant as one): a recognizer that can starts it with
    /// that utterance's audio, so every transcript of it holds the words of both. Returns
    /// whether it did (`false`: this utterance's own words only).
    fn continue_previous(&mut self) -> bool {
        false
    }
    /// Appends audio of the current utterance.
    fn accept(&mut self, samples: &[f32]) -> EngineResult<()>;
    /// A provisional transcript of what was accepted so far (may cost a decode).
    fn partial(&mut self) -> EngineResult<Option<String>>;
    /// The final transcript, decoded early while the end-of-speech silence is still being
    /// waited out, if there is a new one since the last call (what `finish` will return unless
    /// the user speaks on).
    fn early_final(&mut self) -> Option<String> {
        None
    }
    /// The final transcript decoded now, at a pause the caller's endpointer heard (before the
    /// recognizer's own detector would): it stays the final unless
    /// [`speech_resumed`](Transcriber::speech_resumed) follows. `None` when there is nothing
    /// new to say (no speech, or the same words already given).
    fn early_final_now(&mut self) -> Option<String> {
        self.early_final()
    }
    /// The recognizer's probability (0..=1) of the last word of the latest early final: a
    /// low one can be a word it invented to finish a fragment. 1.0 when it cannot tell.
    fn early_final_last_word_p(&self) -> f32 {
        1.0
    }
    /// The user spoke again after the pause of [`early_final_now`](Transcriber::early_final_now).
    fn speech_resumed(&mut self) {}
    /// The utterance is over: its speech stopped `silence` before the end of the audio given
    /// (the wait the endpointer heard out; zero at a push-to-talk release). `finish` follows.
    fn speech_ended(&mut self, _silence: Duration) {}
    /// The final transcript of the utterance.
    fn finish(&mut self) -> EngineResult<String>;
}

/// Semantic end of turn: is the user done, or only pausing?
pub trait TurnClassifier: Send {
    /// The probability (0..=1) that the turn in `audio` is complete: 16 kHz mono, the turn so
    /// far including the pause it is asked in.
    fn complete_probability(&mut self, audio: &[f32]) -> EngineResult<f32>;
}

/// How a reply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyEnd {
    /// The model finished its answer.
    Complete,
    /// The cancel flag or the callback stopped it.
    Cancelled,
}

/// A chat session: history plus a model that streams its reply.
pub trait ChatEngine: Send {
    /// Idle-time work that makes the next reply start sooner (e.g. running the system prompt
    /// and history through the model). Called when the chat has nothing else to do.
    fn prepare(&mut self) -> EngineResult<()> {
        Ok(())
    }
    /// Runs the user's likely next words through the model ahead of the turn (not added to
    /// the history), so the reply to them starts sooner.
    fn prefill_user(&mut self, _user_text: &str) -> EngineResult<()> {
        Ok(())
    }
    /// How likely (0..=1) the user's words so far are their whole turn, judged by the model
    /// from the words alone ("What is the capital of" ~0, "... of France" ~0.9); the words
    /// run ahead as `prefill_user` does. `None`: this engine cannot tell.
    fn turn_end_probability(&mut self, _user_text: &str) -> EngineResult<Option<f32>> {
        Ok(None)
    }
    /// Adds the user's words and streams the reply's speakable text to `on_piece`; the
    /// reply is kept in the history. Checks `cancel` between tokens.
    fn reply(
        &mut self,
        user_text: &str,
        cancel: &AtomicBool,
        on_piece: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> EngineResult<ReplyEnd>;
    /// Replaces the last reply in the history with the part the user heard ("" drops it).
    fn truncate_last_reply(&mut self, heard: &str);
    /// Takes the last `reply` back, its user turn with it, as if never said: a reply made
    /// ahead of time (during the end-of-speech wait) that the user never heard because they
    /// went on speaking.
    fn forget_last_exchange(&mut self);
    /// Forgets the conversation.
    fn reset(&mut self);
    /// Something the user should know before the next turn (e.g. the model file changed on
    /// disk), once per occurrence. Asked before every turn.
    fn notice(&mut self) -> Option<String> {
        None
    }

    /// The conversation the model sees now, oldest first (read-only: soak checks, UIs).
    /// Engines without a history return nothing.
    fn history(&self) -> Vec<pocket_llm::chat::Message> {
        Vec::new()
    }
}

/// Cuts streamed reply text into pieces worth synthesizing on their own.
pub trait TextSegmenter: Send {
    /// Adds text; completed segments are appended to `out`.
    fn push(&mut self, text: &str, out: &mut Vec<String>);
    /// The remaining text at the end of a reply, if any.
    fn flush(&mut self) -> Option<String>;
    /// Drops pending text (barge-in).
    fn reset(&mut self);
    /// The pending piece of the reply is overdue (the first one, `PipelineConfig::first_piece_due`
    /// after the first token; a later one, when the audio ahead of it runs out): ends it at the
    /// next word if it can. Segmenters without such a rule return `None`.
    fn cut_due_piece(&mut self) -> Option<String> {
        None
    }
}

/// Text to speech, streamed in chunks.
pub trait Speaker: Send {
    /// Output rate of the chunks.
    fn sample_rate(&self) -> u32;
    /// Synthesizes `text`, handing each chunk to `on_chunk` as soon as it is ready. Checks
    /// `cancel` between chunks.
    fn synthesize(
        &mut self,
        text: &str,
        cancel: &AtomicBool,
        on_chunk: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> EngineResult<()>;
}

/// The engines one pipeline runs on.
pub struct Engines {
    pub detector: Box<dyn SpeechDetector>,
    pub transcriber: Box<dyn Transcriber>,
    pub chat: Box<dyn ChatEngine>,
    pub segmenter: Box<dyn TextSegmenter>,
    pub speaker: Box<dyn Speaker>,
    /// The end-of-turn classifier; `None`: turns end after a fixed silence.
    pub turn: Option<Box<dyn TurnClassifier>>,
    /// A smaller model that judges the user's words at each pause (semantic endpointing) on
    /// its own thread, in place of `chat`; `None`: `chat` judges them itself, in line with
    /// its replies.
    pub words_judge: Option<Box<dyn ChatEngine>>,
}

pub mod asr;
pub mod choice;
pub mod default;
pub mod energy;
pub mod llm;
pub mod tts;
pub mod turn;
