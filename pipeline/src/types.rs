//! The types that cross the pipeline's boundary: turn ids, UI events and the conversation state.

use serde::{Deserialize, Serialize};

use crate::metrics::TurnMetrics;

/// One assistant turn. Turn ids come from the shared epoch: a new turn bumps the epoch and takes
/// its value, a barge-in bumps it again, so `turn == epoch` means "still current".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TurnId(pub u64);

impl std::fmt::Display for TurnId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "turn {}", self.0)
    }
}

/// What the assistant is doing, as a UI shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Waiting for (or hearing) the user.
    Listening,
    /// The user's turn is final; the reply is being prepared.
    Thinking,
    /// The reply is playing.
    Speaking,
}

/// Where an interrupted reply was when the user cut in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptedWhile {
    Thinking,
    Speaking,
}

/// Why a reply was interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptCause {
    /// The user started speaking (barge-in, or push-to-talk pressed).
    UserSpeech,
    /// `PipelineHandle::stop_speaking`.
    StopRequested,
    /// A newer user turn replaced it before it was spoken.
    Superseded,
    /// The output device was lost or stopped playing.
    OutputLost,
    /// The user went on speaking right after the turn ended (at a pause they meant as one):
    /// the turn was taken back, and its words and theirs since are the next turn.
    Continued,
}

/// Everything a UI (or the CLI, or a test) learns about the conversation, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The conversation state changed.
    State { state: State },
    /// The user started speaking (after the debounce: a cough never gets here).
    SpeechStarted,
    /// The user stopped speaking: the endpointer fired.
    SpeechStopped,
    /// The user paused, and the end-of-turn classifier judged the turn not complete
    /// (`p_complete` below the threshold): the loop keeps listening, up to the fallback
    /// silence. A UI can show that it is waiting for more.
    StillListening { p_complete: f32 },
    /// A provisional transcript of the utterance in progress.
    PartialTranscript { text: String },
    /// The final transcript of an utterance; `turn` is the reply it starts, if any.
    FinalTranscript { text: String, turn: Option<TurnId> },
    /// A piece of the assistant's reply text as it streams from the language model.
    AssistantText { turn: TurnId, text: String },
    /// The reply's first sample reached the output.
    AudioStarted { turn: TurnId },
    /// The whole reply played.
    AudioFinished { turn: TurnId },
    /// The reply was cut off; `heard` is what the user actually heard (also what the chat
    /// history keeps).
    Interrupted {
        turn: TurnId,
        heard: String,
        during: InterruptedWhile,
        cause: InterruptCause,
    },
    /// The user started speaking over the reply: it is paused (silent, in place) while the
    /// recognizer tells a backchannel from an interruption.
    ReplyPaused { turn: TurnId },
    /// What the user said over the reply was no words or only a backchannel (`said`): the
    /// reply goes on where it paused, and nothing joins the conversation.
    ReplyResumed { turn: TurnId, said: String },
    /// The turn's timestamps and latencies, once its audio started.
    Latency { turn: TurnId, metrics: TurnMetrics },
    /// An audio device stopped or disappeared (`device`: "microphone" or "speaker").
    DeviceLost { device: String, message: String },
    /// A lost device works again, re-opened on `name` (the current default). A restored speaker
    /// speaks the next reply (the one it lost is not replayed).
    DeviceRestored { device: String, name: String },
    /// Something failed; the loop goes on where it can.
    Error { message: String },
}

/// An event with the pipeline-clock time it was emitted at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stamped {
    /// Milliseconds since the pipeline started (its monotonic clock).
    pub at_ms: f64,
    #[serde(flatten)]
    pub event: Event,
    /// The pipeline stage whose report caused the event (canonical order of simultaneous
    /// events in simulations).
    #[serde(skip)]
    pub(crate) source: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_for_uis() {
        let e = Stamped {
            at_ms: 12.5,
            event: Event::Interrupted {
                turn: TurnId(3),
                heard: "Once upon".into(),
                during: InterruptedWhile::Speaking,
                cause: InterruptCause::UserSpeech,
            },
            source: 0,
        };
        let json = serde_json::to_string(&e).expect("serializes");
        assert_eq!(
            json,
            r#"{"at_ms":12.5,"type":"interrupted","turn":3,"heard":"Once upon","during":"speaking","cause":"user_speech"}"#
        );
        let back: Stamped = serde_json::from_str(&json).expect("parses");
        assert_eq!(back.event, e.event);
        let s = serde_json::to_string(&Event::State {
            state: State::Thinking,
        })
        .expect("serializes");
        assert_eq!(s, r#"{"type":"state","state":"thinking"}"#);
    }
}
