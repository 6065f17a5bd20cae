//! The actors (one thread each, around one synchronous engine) and the messages between them.
//! Every message that belongs to a reply carries its `Turn`; actors drop those of stale turns.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::echo::FRAME;
use crate::types::{InterruptCause, TurnId};

pub(crate) mod asr;
pub(crate) mod brain;
pub(crate) mod conductor;
pub(crate) mod ears;
pub(crate) mod judge;
pub(crate) mod monitor;
pub(crate) mod mouth;
pub(crate) mod pace;
pub(crate) mod text_end;
pub(crate) mod turn_end;
pub(crate) mod words;

/// A reply's identity and its cancel flag (set on barge-in; engines poll it).
#[derive(Debug, Clone)]
pub(crate) struct Turn {
    pub(crate) id: TurnId,
    pub(crate) cancel: Arc<AtomicBool>,
}

impl Turn {
    /// Still the current turn and not cancelled.
    pub(crate) fn is_live(&self, epoch: &AtomicU64) -> bool {
        !self.cancel.load(Ordering::Acquire) && epoch.load(Ordering::Acquire) == self.id.0
    }
}

/// 10 ms of microphone audio at 16 kHz, stamped with the clock time of its last sample.
#[derive(Clone, Copy)]
pub(crate) struct MicFrame {
    pub(crate) at: Duration,
    pub(crate) samples: [f32; FRAME],
}

/// What the microphone lane carries: audio, and marks a file source sends after it to learn
/// when the loop has heard everything before (see `MicSender::mark`).
#[allow(clippy::large_enum_variant)] // nearly every message is a frame: boxing would not pay
pub(crate) enum MicInput {
    Frame(MicFrame),
    Mark(u64),
}

/// Control of the capture actor.
#[derive(Debug)]
pub(crate) enum EarsCtl {
    /// Push-to-talk pressed (`true`: the user speaks now) or released (end of utterance).
    PushToTalk(bool),
    /// Mute (`false`) or unmute the microphone.
    Listen(bool),
    /// The input device is gone: an utterance in progress is dropped (its end will never
    /// come; the device may come back with other audio).
    InputLost,
    /// The language model's judgement of the words heard up to pause `pause` (semantic
    /// endpointing): the probability that they are the user's whole turn.
    TextVerdict {
        pause: u64,
        p: f32,
        /// The recognizer's probability of the last word judged.
        last_word_p: f32,
        /// Whether the recognizer wrote the words as a question (they end in "?").
        asks: bool,
    },
}

/// Utterance audio for the recognizer.
#[allow(clippy::large_enum_variant)] // nearly every message is `Audio`: boxing would not pay
pub(crate) enum AsrMsg {
    Begin {
        utt: u64,
        /// It began soon after the last utterance ended (`EndpointConfig::continue_within`):
        /// it goes on from that one if the recognizer can (see `Report::Continues`).
        continues: bool,
    },
    Audio {
        utt: u64,
        frame: MicFrame,
        /// The capture actor hears the user speaking in this frame (not a gap or a pause).
        speaking: bool,
    },
    /// The utterance is over; its speech stopped `silence` before this message.
    End {
        utt: u64,
        silence: Duration,
    },
    Drop {
        utt: u64,
    },
    /// The capture actor heard a pause (numbered `pause`): decode the final now.
    Pause {
        utt: u64,
        pause: u64,
    },
    /// Speech again after that pause: the decode is no longer the final.
    Resumed {
        utt: u64,
    },
}

/// A user turn for the language model.
pub(crate) struct Think {
    pub(crate) turn: Turn,
    pub(crate) text: String,
    /// A reply this turn cut off whose cut the output has not confirmed yet: its `Truncate`
    /// is on the way, and the history must be cut before this turn's words join it.
    pub(crate) after_cut: Option<TurnId>,
    /// Judge first whether the words are a whole turn, for the capture actor's pause `judge`.
    pub(crate) judge: Option<u64>,
}

/// Control of the language-model actor.
#[derive(Debug)]
pub(crate) enum BrainCtl {
    /// Keep only what was heard of `turn`'s reply in the history.
    Truncate { turn: TurnId, heard: String },
    /// Forget the conversation.
    Reset,
    /// Run the user's likely words through the model before their turn arrives (and judge
    /// whether they are a whole turn, for the capture actor's pause `judge`).
    Prefill { text: String, judge: Option<u64> },
    /// Take `turn`'s exchange back (a reply made ahead of time the user never heard, or the
    /// turn the user went on from: its words come again in the turn of both), if it is the
    /// last in the history.
    Forget { turn: TurnId },
}

/// Work for the synthesis actor.
pub(crate) enum Speak {
    Segment { turn: Turn, text: String },
    EndOfReply { turn: Turn },
}

/// What actors tell the conductor. Times are pipeline-clock durations.
#[derive(Debug)]
pub(crate) enum Report {
    /// The capture actor has handled every frame sent before mark `mark`.
    Heard {
        mark: u64,
    },
    SpeechStarted,
    SpeechDiscarded,
    /// Speech again after a pause within the same utterance (the end-of-speech wait was on).
    SpeechResumed,
    SpeechStopped {
        utt: u64,
        speech_end: Duration,
        eou: Duration,
        /// Smart endpointing: the classifier's P(complete) at the pause that ended the turn...
        turn_p: Option<f32>,
        /// ...and its time on it.
        turn_took: Option<Duration>,
    },
    /// The user paused and the classifier judged the turn not complete: still listening.
    TurnPending {
        p_complete: f32,
    },
    Partial {
        text: String,
    },
    /// The final transcript decoded before the endpoint (during the end-of-speech wait).
    EarlyFinal {
        text: String,
        /// The capture actor's pause it was decoded at (`None`: the recognizer's own).
        pause: Option<u64>,
        /// The recognizer's probability of the last word (see
        /// `Transcriber::early_final_last_word_p`).
        last_word_p: f32,
    },
    Final {
        utt: u64,
        text: String,
        at: Duration,
    },
    /// Utterance `utt` goes on from utterance `after` (whose final had words): its
    /// transcripts hold the words of both, and the turn made of `after` is to be taken back.
    Continues {
        utt: u64,
        after: u64,
    },
    /// The model's P(whole turn) for the words heard up to the capture actor's pause `pause`.
    TurnJudged {
        pause: u64,
        p: f32,
    },
    FirstToken {
        turn: TurnId,
        at: Duration,
    },
    Piece {
        turn: TurnId,
        text: String,
    },
    FirstSegment {
        turn: TurnId,
        at: Duration,
    },
    ReplyDone {
        turn: TurnId,
        segments: usize,
    },
    TtsFirstChunk {
        turn: TurnId,
        at: Duration,
    },
    AudioStarted {
        turn: TurnId,
        at: Duration,
    },
    AudioFinished {
        turn: TurnId,
    },
    /// The output applied `epoch`; if that cut a reply off: which, after how many samples, when.
    PlaybackStopped {
        epoch: u64,
        cut: Option<(TurnId, u64, Duration)>,
    },
    /// The output has played nothing for `output_timeout`.
    OutputStalled,
    /// The output plays again after a stall or a lost device.
    OutputResumed,
    /// Synthesis skipped `turn`'s reply: the output is down (the reply is text only).
    Muted {
        turn: TurnId,
    },
    Error {
        message: String,
    },
    DeviceLost {
        device: String,
        message: String,
    },
    /// The backend re-opened a lost device (`name`: the one now in use).
    DeviceRestored {
        device: String,
        name: String,
    },
}

impl Report {
    /// Which stage sent it (events are tagged with it; see `Stamped::source`).
    pub(crate) fn source(&self) -> u8 {
        match self {
            Report::Heard { .. }
            | Report::SpeechStarted
            | Report::SpeechDiscarded
            | Report::SpeechResumed
            | Report::SpeechStopped { .. }
            | Report::TurnPending { .. } => 0,
            Report::Partial { .. }
            | Report::EarlyFinal { .. }
            | Report::Final { .. }
            | Report::Continues { .. } => 1,
            Report::FirstToken { .. }
            | Report::TurnJudged { .. }
            | Report::Piece { .. }
            | Report::FirstSegment { .. }
            | Report::ReplyDone { .. } => 2,
            Report::TtsFirstChunk { .. } | Report::Muted { .. } => 3,
            Report::AudioStarted { .. }
            | Report::AudioFinished { .. }
            | Report::PlaybackStopped { .. }
            | Report::OutputStalled
            | Report::OutputResumed => 4,
            Report::Error { .. } | Report::DeviceLost { .. } | Report::DeviceRestored { .. } => 5,
        }
    }
}

/// The source tag of events caused by handle commands.
pub(crate) const COMMAND_SOURCE: u8 = 6;

/// Requests from `PipelineHandle`.
#[derive(Debug)]
pub(crate) enum Command {
    StopSpeaking,
    PushToTalk(bool),
    Listen(bool),
    /// A typed user turn (no speech).
    Say(String),
    Reset,
    Shutdown,
}

/// Why the conductor cut a turn (kept for the event).
pub(crate) type Cause = InterruptCause;
