//! Small typed arguments of `voicebench run`: the modality, how a turn ends and what the
//! recognizer is told to expect (the shard `i/n` is `pocket_voicebench::Shard`).

use clap::ValueEnum;

/// What a sample goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Modality {
    /// The sample's audio through the whole voice loop (VAD, ASR, LLM, TTS, output).
    Audio,
    /// The sample's prompt text straight to the voice chat (no speech).
    Text,
    /// Like `audio`, but the reply is stopped as soon as its first audio plays: the latency
    /// of the whole loop without waiting for the rest of the answer (responses are partial).
    Ttft,
}

/// How a sample's turn ends (audio, ttft).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TurnEnd {
    /// The whole sample is one user turn: the loop is told where its speech ends, as a
    /// push-to-talk release would, so no pause inside it ends the turn.
    Sample,
    /// The loop's own endpointing (`--endpoint`) decides, as in hands-free use: a long pause
    /// inside a sample may end a turn there (the record then counts and joins every turn).
    Natural,
}

/// What the recognizer is told to expect before each sample (audio, ttft).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListenFor {
    /// `choices` for the multiple-choice subsets (openbookqa, mmsu), `plain` for the others.
    Auto,
    /// Nothing: the voice loop's own prompt.
    Plain,
    /// A question with lettered options (`pocket_asr::context::CHOICES_TEXT` as earlier
    /// text), so spoken option letters are written as letters.
    Choices,
}

impl ListenFor {
    /// The recognizer's earlier text for `subset`'s samples (empty: none). A subset this
    /// harness does not know (`None`) is not taken for multiple choice.
    pub fn plain_text(self, subset: Option<pocket_voicebench::Subset>) -> &'static str {
        let choices = match self {
            ListenFor::Auto => {
                subset.is_some_and(|s| s.scorer() == pocket_voicebench::ScorerKind::MultipleChoice)
            }
            ListenFor::Plain => false,
            ListenFor::Choices => true,
        };
        if choices {
            pocket_asr::context::CHOICES_TEXT
        } else {
            ""
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ListenFor;
    use pocket_asr::context::CHOICES_TEXT;
    use pocket_voicebench::Subset;

    #[test]
    fn auto_expects_lettered_options_only_in_the_multiple_choice_subsets() {
        let auto = |s: Option<Subset>| ListenFor::Auto.plain_text(s);
        assert_eq!(auto(Some(Subset::OpenBookQa)), CHOICES_TEXT);
        assert_eq!(auto(Some(Subset::Mmsu)), CHOICES_TEXT);
        for other in [Subset::IfEval, Subset::Bbh, Subset::AdvBench, Subset::SdQa] {
            assert_eq!(auto(Some(other)), "", "{other}");
        }
        assert_eq!(auto(None), "", "a subset the harness does not know");
        assert_eq!(ListenFor::Plain.plain_text(Some(Subset::Mmsu)), "");
        assert_eq!(
            ListenFor::Choices.plain_text(Some(Subset::IfEval)),
            CHOICES_TEXT
        );
    }
}
