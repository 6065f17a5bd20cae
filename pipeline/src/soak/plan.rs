//! The seeded plan of a soak run: which input each turn is, which turns get cut off and how,
//! and where the resets fall.

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
const RESET_BEFORE: u64 = 4;
const BARGE_THINKING: u64 = 12;
const BARGE_SPEAKING: u64 = 15;
const RESET_WHILE_SPEAKING: u64 = 3;
const TYPED: u64 = 25;
const PUSH_TO_TALK: u64 = 25;

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

/// SplitMix64: small, seeded, the same everywhere.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0; the modulo bias is negligible for small `n`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}
