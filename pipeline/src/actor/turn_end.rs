//! Smart endpointing inside the capture actor: keeps the utterance's last 8 s, asks the
//! end-of-turn worker at each pause (early, at `ask_after` of silence, and again at
//! `decide_after`), and turns the answers into "end the turn now" or "keep listening". It
//! never waits for an answer: frames go on, and an answer is taken at the first frame after it
//! came. Speech that resumes makes pending answers moot (they are dropped when they come).

use std::collections::VecDeque;
use std::time::Duration;

use super::Report;
use super::judge::{TurnAsk, TurnVerdict};
use crate::chan::{Rx, Tx};
use crate::config::SmartEndpoint;

/// Audio the classifier looks at: its last 8 s.
const KEEP: usize = pocket_turn::features::WINDOW;

/// What to do at a silent frame.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Decision {
    /// Keep listening.
    Wait,
    /// End the turn now; the verdict behind it (none when the fallback silence ran out
    /// without one).
    End(Option<TurnVerdict>),
}

/// The current pause's asks and answers.
#[derive(Default)]
struct Pause {
    /// The early ask (at `ask_after`) and the late one (at `decide_after`).
    early: Option<u64>,
    late: Option<u64>,
    /// The latest answer about this pause.
    last: Option<TurnVerdict>,
    /// An answer at or above the threshold.
    complete: Option<TurnVerdict>,
}

pub(crate) struct SmartEnd {
    cfg: SmartEndpoint,
    asks: Tx<TurnAsk>,
    verdicts: Rx<TurnVerdict>,
    report: Tx<Report>,
    audio: VecDeque<f32>,
    next_id: u64,
    pause: Pause,
}

impl SmartEnd {
    pub(crate) fn new(
        cfg: SmartEndpoint,
        asks: Tx<TurnAsk>,
        verdicts: Rx<TurnVerdict>,
        report: Tx<Report>,
    ) -> Self {
        Self {
            cfg,
            asks,
            verdicts,
            report,
            audio: VecDeque::with_capacity(KEEP),
            next_id: 0,
            pause: Pause::default(),
        }
    }

    /// A new utterance.
    pub(crate) fn begin(&mut self) {
        self.audio.clear();
        self.pause = Pause::default();
    }

    /// Utterance audio, as it goes to the recognizer.
    pub(crate) fn hear(&mut self, samples: &[f32]) {
        let over = (self.audio.len() + samples.len()).saturating_sub(KEEP);
        self.audio.drain(..over.min(self.audio.len()));
        self.audio
            .extend(&samples[samples.len().saturating_sub(KEEP)..]);
    }

    /// A voiced frame: the pause (if any) is over and its answers no longer matter.
    pub(crate) fn speech(&mut self) {
        self.pause = Pause::default();
    }

    /// A silent frame, `silence` into the pause. Two asks: an early one, whose answer is ready
    /// by `decide_after` even on a busy CPU, and (unless that one said "complete") one at
    /// `decide_after` on the audio with that much silence in it — the model was trained on
    /// turns ending in about 200 ms of silence and is surer of complete ones then. Any answer
    /// at or above the threshold ends the turn, but not before `decide_after`.
    pub(crate) fn silence(&mut self, silence: Duration) -> Decision {
        if silence >= self.cfg.ask_after && self.pause.early.is_none() {
            self.pause.early = self.ask();
        }
        self.collect();
        if silence >= self.cfg.decide_after
            && self.pause.late.is_none()
            && self.pause.complete.is_none()
        {
            // Its answer is taken at a later frame, never this one: the worker may answer
            // before this frame ends or after, and the turn's timing must not depend on which.
            self.pause.late = self.ask();
        }
        if silence >= self.cfg.fallback {
            return Decision::End(self.pause.last);
        }
        match self.pause.complete {
            Some(v) if silence >= self.cfg.decide_after => Decision::End(Some(v)),
            _ => Decision::Wait,
        }
    }

    /// Sends an ask about the audio so far; `None` if the worker's queue is full (it is behind:
    /// the fallback silence covers this pause).
    fn ask(&mut self) -> Option<u64> {
        let id = self.next_id + 1;
        let audio: Vec<f32> = self.audio.iter().copied().collect();
        self.asks.try_send(TurnAsk { id, audio }).then(|| {
            self.next_id = id;
            id
        })
    }

    /// Takes the answers that arrived; those about earlier pauses are dropped.
    fn collect(&mut self) {
        while let Some(v) = self.verdicts.try_recv() {
            let early = self.pause.early == Some(v.id);
            let late = self.pause.late == Some(v.id);
            let Some(p) = v.p.filter(|_| early || late) else {
                continue;
            };
            self.pause.last = Some(v);
            if p >= self.cfg.threshold {
                self.pause.complete.get_or_insert(v);
            } else if late {
                // The surer answer says "not done": tell the user we are still listening.
                self.report.send(Report::TurnPending { p_complete: p });
            }
        }
    }
}
