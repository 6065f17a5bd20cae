//! What one audio sample's record says happened (`outcome`, `turns`, transcript, response),
//! read from the turns the voice loop recorded for it, so the fields always agree.

use pocket_pipeline::audio::file::TurnOutcome;
use pocket_pipeline::metrics::TurnRecord;

/// How a sample ended, as written in the record's `outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A reply was spoken (to its end, or cut by nothing the harness did).
    Answered,
    /// The ttft modality stopped the spoken reply at its first audio.
    StoppedAtFirstAudio,
    /// Speech was heard, but nothing was spoken back: an empty transcript, or a reply with
    /// nothing to say or that never reached the output.
    NoReply,
    /// No speech was detected in the sample.
    NoSpeech,
    /// The sample could not be run (the record's `error` says why).
    Error,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Answered => "answered",
            Outcome::StoppedAtFirstAudio => "stopped_at_first_audio",
            Outcome::NoReply => "noreply",
            Outcome::NoSpeech => "nospeech",
            Outcome::Error => "error",
        }
    }
}

/// One sample's record fields from the loop's turns during it.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleTurns {
    pub outcome: Outcome,
    /// What the recognizer heard, every turn's words joined in order.
    pub transcript: String,
    /// The reply spoken to the last turn (empty when none was spoken).
    pub response: String,
    /// User turns the sample made (1 unless natural endpointing split it).
    pub turns: usize,
}

/// `turns` are the records the loop added while the sample played (oldest first), `waited`
/// what the clip driver saw, `stopped` whether ttft stops replies at first audio. A reply
/// counts as spoken when its first audio played; the response is only ever a spoken reply,
/// so `answered` and a non-empty response go together.
pub fn read_turns(turns: &[TurnRecord], waited: &TurnOutcome, stopped: bool) -> SampleTurns {
    let transcript = turns
        .iter()
        .map(|t| t.user_text.trim())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let last = turns.last();
    let spoken =
        last.filter(|t| t.metrics.first_audio.is_some() && !t.reply_text.trim().is_empty());
    let outcome = match (spoken, waited) {
        (Some(_), _) if stopped => Outcome::StoppedAtFirstAudio,
        (Some(_), _) => Outcome::Answered,
        (None, TurnOutcome::NoSpeech) if turns.is_empty() => Outcome::NoSpeech,
        (None, _) => Outcome::NoReply,
    };
    SampleTurns {
        outcome,
        transcript,
        response: spoken.map_or(String::new(), |t| t.reply_text.trim().to_string()),
        turns: turns.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pocket_pipeline::metrics::TurnMetrics;

    fn turn(user: &str, reply: &str, spoken: bool) -> TurnRecord {
        TurnRecord {
            turn: 1,
            user_text: user.into(),
            reply_text: reply.into(),
            heard: None,
            metrics: TurnMetrics {
                first_audio: spoken.then_some(1000.0),
                ..TurnMetrics::default()
            },
            first_audio_latency_ms: None,
            response_latency_ms: None,
            true_first_audio_latency_ms: None,
            underruns: None,
        }
    }

    #[test]
    fn the_outcome_follows_the_recorded_turns_not_the_wait() {
        // The driver's wait ended on "no reply", but the turn's reply was spoken.
        let t = read_turns(&[turn("Hi.", "Hello!", true)], &TurnOutcome::NoReply, false);
        assert_eq!(
            (t.outcome, t.response.as_str()),
            (Outcome::Answered, "Hello!")
        );
        // A reply the output never played is no answer, and not the response.
        let t = read_turns(
            &[turn("Hi.", "Hello!", false)],
            &TurnOutcome::Answered,
            false,
        );
        assert_eq!((t.outcome, t.response.as_str()), (Outcome::NoReply, ""));
        let t = read_turns(&[], &TurnOutcome::NoSpeech, false);
        assert_eq!((t.outcome, t.turns), (Outcome::NoSpeech, 0));
        let t = read_turns(&[], &TurnOutcome::NoReply, false);
        assert_eq!(t.outcome, Outcome::NoReply);
        let t = read_turns(&[turn("Hi.", "Hel", true)], &TurnOutcome::Answered, true);
        assert_eq!(t.outcome, Outcome::StoppedAtFirstAudio);
    }

    #[test]
    fn a_split_sample_joins_its_words_and_says_how_many_turns() {
        let turns = [
            turn("Which is a source of light?", "Let me think.", true),
            turn("A, the moon. B, the sun.", "The sun.", true),
        ];
        let t = read_turns(&turns, &TurnOutcome::Answered, false);
        assert_eq!(t.turns, 2);
        assert_eq!(
            t.transcript,
            "Which is a source of light? A, the moon. B, the sun."
        );
        assert_eq!(t.response, "The sun.");
    }
}
