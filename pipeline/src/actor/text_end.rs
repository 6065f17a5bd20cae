//! Semantic endpointing inside the capture actor: at each pause the recognizer decodes the
//! words so far and the language model judges whether they are the user's whole turn (the
//! judgement comes back through the conductor as `EarsCtl::TextVerdict`). This keeps the
//! judgement of the current pause and turns it into "end the turn now" or "keep listening";
//! it never waits for one: frames go on, and a judgement is taken at the first frame after
//! it came. Judgements of an earlier pause (the user spoke again since) are dropped. Words
//! whose last one the recognizer doubts (perhaps invented to finish a fragment) do not end
//! the turn early, whatever the model says of them.

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
    /// The judgement of the pause, and whether it says the words are the whole turn (the
    /// model judged them so, and the recognizer was sure enough of the last word).
    verdict: Option<(TurnVerdict, bool)>,
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

    /// The model's P(whole turn) for pause `pause`, arrived at `at`, and the recognizer's
    /// probability of the last word it judged.
    pub(crate) fn judged(&mut self, pause: u64, p: f32, last_word_p: f32, at: Duration) {
        let Some((current, asked)) = self.pause.filter(|(id, _)| *id == pause) else {
            return;
        };
        let whole = p >= self.cfg.threshold && last_word_p >= self.cfg.min_last_word_p;
        let verdict = TurnVerdict {
            id: current,
            p: Some(p),
            took: at.saturating_sub(asked),
        };
        self.verdict = Some((verdict, whole));
        if !whole {
            // The words sound unfinished: tell the user we are still listening.
            self.report.send(Report::TurnPending { p_complete: p });
        }
    }

    /// A silent frame, `silence` into the pause.
    pub(crate) fn silence(&self, silence: Duration) -> Decision {
        let due = match self.verdict {
            Some((_, true)) => self.cfg.decide_after,
            Some((_, false)) => self.cfg.fallback,
            None => self.end_silence,
        };
        if silence >= due {
            Decision::End(self.verdict.map(|(v, _)| v))
        } else {
            Decision::Wait
        }
    }
}
