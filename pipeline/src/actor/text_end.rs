//! Semantic endpointing inside the capture actor: at each pause the recognizer decodes the
//! words so far and the language model judges whether they are the user's whole turn (the
//! judgement comes back through the conductor as `EarsCtl::TextVerdict`). This keeps the
//! judgement of the current pause and turns it into "end the turn now" or "keep listening";
//! it never waits for one: frames go on, and a judgement is taken at the first frame after
//! it came. Judgements of an earlier pause (the user spoke again since) are dropped. Words
//! whose last one the recognizer doubts (perhaps invented to finish a fragment) do not end
//! the turn early, whatever the model says of them. Words the recognizer wrote as a question
//! that the model doubts a little (P between `question_threshold` and `threshold`) wait
//! `question_wait`, between the two.

use std::time::Duration;

use super::Report;
use super::judge::TurnVerdict;
use super::turn_end::Decision;
use crate::chan::Tx;
use crate::config::SemanticEndpoint;

pub(crate) struct TextEnd {
    cfg: SemanticEndpoint,
    /// `EndpointConfig::end_silence`: the rule while no judgement is in.
    end_silence: Duration,
    report: Tx<Report>,
    /// The pause being judged and when it was asked about (`None`: the user is speaking).
    pause: Option<(u64, Duration)>,
    /// The judgement of the pause, and how long a silence it asks for.
    verdict: Option<(TurnVerdict, Wait)>,
}

/// How long a pause the judgement of the words asks for before the turn ends.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Wait {
    /// The whole turn (the model judged so, and the recognizer was sure of the last word):
    /// `decide_after`.
    Whole,
    /// A question by its words and mark, the model less sure: `question_wait`.
    Question,
    /// Unfinished, or the last word doubtful: `fallback`.
    Unfinished,
}

impl TextEnd {
    pub(crate) fn new(cfg: SemanticEndpoint, end_silence: Duration, report: Tx<Report>) -> Self {
        Self {
            cfg,
            end_silence,
            report,
            pause: None,
            verdict: None,
        }
    }

    /// A voiced frame: the pause (if any) is over and its judgement no longer matters.
    pub(crate) fn speech(&mut self) {
        self.pause = None;
        self.verdict = None;
    }

    /// The recognizer was asked for the words up to pause `pause` at `at`.
    pub(crate) fn asked(&mut self, pause: u64, at: Duration) {
        self.pause = Some((pause, at));
        self.verdict = None;
    }

    /// The model's P(whole turn) for pause `pause`, arrived at `at`, the recognizer's
    /// probability of the last word it judged, and whether it wrote the words as a question.
    pub(crate) fn judged(
        &mut self,
        pause: u64,
        p: f32,
        last_word_p: f32,
        asks: bool,
        at: Duration,
    ) {
        let Some((current, asked)) = self.pause.filter(|(id, _)| *id == pause) else {
            return;
        };
        let sure = last_word_p >= self.cfg.min_last_word_p;
        let wait = if sure && p >= self.cfg.threshold {
            Wait::Whole
        } else if sure && asks && p >= self.cfg.question_threshold {
            Wait::Question
        } else {
            Wait::Unfinished
        };
        let verdict = TurnVerdict {
            id: current,
            p: Some(p),
            took: at.saturating_sub(asked),
        };
        self.verdict = Some((verdict, wait));
        if wait != Wait::Whole {
            // The words sound unfinished: tell the user we are still listening.
            self.report.send(Report::TurnPending { p_complete: p });
        }
    }

    /// A silent frame, `silence` into the pause.
    pub(crate) fn silence(&self, silence: Duration) -> Decision {
        let due = match self.verdict {
            Some((_, Wait::Whole)) => self.cfg.decide_after,
            Some((_, Wait::Question)) => self.cfg.question_wait.max(self.cfg.decide_after),
            Some((_, Wait::Unfinished)) => self.cfg.fallback,
            None => self.end_silence,
        };
        if silence >= due {
            Decision::End(self.verdict.map(|(v, _)| v))
        } else {
            Decision::Wait
        }
    }
}
