//! The words judge: a small language model, kept loaded beside a larger answering one, says at
//! each pause how likely the user's words so far are their whole turn (semantic endpointing).
//! On its own thread, the verdict never waits behind the answering model, which is busy with
//! the reply made ahead of the endpoint at that very moment: with Qwen2.5-Coder-1.5B judging
//! its own turns, a verdict took ~245 ms on a 2-core machine; SmolLM2-135M on one thread takes
//! a fraction of that.

use super::Report;
use crate::chan::{Rx, Tx};
use crate::engines::ChatEngine;

/// "Are these words a whole turn?", about the capture actor's pause `pause`.
pub(crate) struct WordsAsk {
    pub(crate) pause: u64,
    pub(crate) text: String,
}

pub(crate) struct WordsJudge {
    /// The judging model (its `turn_end_probability`; it never replies).
    pub(crate) chat: Box<dyn ChatEngine>,
    pub(crate) report: Tx<Report>,
}

impl WordsJudge {
    pub(crate) fn run(mut self, inbox: Rx<WordsAsk>) {
        let mut failed_once = false;
        let mut fail = |report: &Tx<Report>, e: crate::engines::EngineError| {
            // The fixed silence still ends turns: say so once, not at every pause.
            if !failed_once {
                report.send(Report::Error {
                    message: format!(
                        "the end-of-turn model failed (the fixed silence ends turns): {e}"
                    ),
                });
                failed_once = true;
            }
        };
        if let Err(e) = self.chat.prepare() {
            fail(&self.report, e);
        }
        while let Some(mut ask) = inbox.recv() {
            // Only the newest pause is worth the work: the older ones are over, and the
            // capture actor keeps only the current pause's verdict.
            while let Some(newer) = inbox.try_recv() {
                ask = newer;
            }
            match self.chat.turn_end_probability(&ask.text) {
                Ok(Some(p)) => {
                    self.report.send(Report::TurnJudged {
                        pause: ask.pause,
                        p,
                    });
                }
                Ok(None) => {}
                Err(e) => fail(&self.report, e),
            }
        }
    }
}
