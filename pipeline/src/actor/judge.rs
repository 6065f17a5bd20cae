//! The end-of-turn worker: runs the classifier on the turn's audio when the capture actor
//! asks at a pause, off the capture thread, and answers every ask in order (a stale one —
//! a newer ask already waiting — with no probability, at once).

use std::time::Duration;

use super::Report;
use crate::chan::{Rx, Tx};
use crate::clock::Clock;
use crate::engines::TurnClassifier;

/// "Is the turn complete?" about the turn's audio so far (16 kHz, the pause included).
pub(crate) struct TurnAsk {
    pub(crate) id: u64,
    pub(crate) audio: Vec<f32>,
}

/// The answer to ask `id`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TurnVerdict {
    pub(crate) id: u64,
    /// P(complete); `None` when skipped (stale) or the classifier failed.
    pub(crate) p: Option<f32>,
    /// The classifier's time on it.
    pub(crate) took: Duration,
}

pub(crate) struct Judge {
    pub(crate) classifier: Box<dyn TurnClassifier>,
    pub(crate) verdicts: Tx<TurnVerdict>,
    pub(crate) report: Tx<Report>,
    pub(crate) clock: Clock,
}

impl Judge {
    pub(crate) fn run(mut self, inbox: Rx<TurnAsk>) {
        let mut failed_once = false;
        while let Some(mut ask) = inbox.recv() {
            // Only the newest ask is worth the work: the older pauses are over.
            while let Some(newer) = inbox.try_recv() {
                self.answer(ask.id, None, Duration::ZERO);
                ask = newer;
            }
            let start = self.clock.now();
            let p = match self.classifier.complete_probability(&ask.audio) {
                Ok(p) => Some(p),
                Err(e) => {
                    // The fallback silence ends such turns; say so once, not at every pause.
                    if !failed_once {
                        self.report.send(Report::Error {
                            message: format!(
                                "end-of-turn classifier failed (the fallback silence ends turns): {e}"
                            ),
                        });
                        failed_once = true;
                    }
                    None
                }
            };
            let took = self.clock.now().saturating_sub(start);
            self.answer(ask.id, p, took);
        }
    }

    fn answer(&self, id: u64, p: Option<f32>, took: Duration) {
        self.verdicts.send(TurnVerdict { id, p, took });
    }
}
