//! The seeded plan of a soak run: which input each turn is, which turns get cut off and how,
//! and where the resets fall.

use pocket_stats::Rng;

use super::SoakOptions;

/// How a user turn comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Input {
    /// A clip played as the microphone; the endpointer ends it.
    Spoken,
    /// `PipelineHandle::say`.
    Typed,
    /// The button held while the clip plays, released after it.
    PushToTalk,
}

/// What happens to a turn's reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Barge {
    /// It plays to the end.
    None,
    /// The next input starts as soon as the turn does (the assistant is thinking).
    Thinking,
    /// The next input starts once the reply's audio has started.
    Speaking,
    /// `reset` once the reply's audio has started.
    ResetWhileSpeaking,
}

/// One turn of the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) input: Input,
    pub(crate) barge: Barge,
    /// `reset` before this turn's input (never right after a barge-in: that input has begun).
    pub(crate) reset_before: bool,
}

/// Shares, in percent.
const RESET_BEFORE: usize = 4;
const BARGE_THINKING: usize = 12;
const BARGE_SPEAKING: usize = 15;
const RESET_WHILE_SPEAKING: usize = 3;
const TYPED: usize = 25;
const PUSH_TO_TALK: usize = 25;

/// The plan for `opts.turns` turns, the same for the same seed.
pub(crate) fn plan(opts: &SoakOptions) -> Vec<Step> {
    let mut rng = Rng::new(opts.seed ^ 0x5eed);
    let mut steps: Vec<Step> = Vec::with_capacity(opts.turns);
    for i in 0..opts.turns {
        let after_barge = steps
            .last()
            .is_some_and(|s| matches!(s.barge, Barge::Thinking | Barge::Speaking));
        let roll = rng.below(100);
        let input = if after_barge && !opts.typed_barge_ins {
            // The user cuts in by voice or by the button.
            if roll < 60 {
                Input::Spoken
            } else {
                Input::PushToTalk
            }
        } else if roll < TYPED {
            Input::Typed
        } else if roll < TYPED + PUSH_TO_TALK {
            Input::PushToTalk
        } else {
            Input::Spoken
        };
        let roll = rng.below(100);
        let last = i + 1 == opts.turns;
        let barge = if roll < BARGE_THINKING && !last {
            Barge::Thinking
        } else if roll < BARGE_THINKING + BARGE_SPEAKING && !last {
            Barge::Speaking
        } else if roll < BARGE_THINKING + BARGE_SPEAKING + RESET_WHILE_SPEAKING {
            Barge::ResetWhileSpeaking
        } else {
            Barge::None
        };
        let reset_before = i > 0 && !after_barge && rng.below(100) < RESET_BEFORE;
        steps.push(Step {
            input,
            barge,
            reset_before,
        });
    }
    steps
}
