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
        yield_to_the_reply();
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

/// Lowers this thread's scheduling priority (Linux and Android: a thread's own nice value). The
/// judge runs in the very moments the reply made ahead is written and spoken, and that reply is
/// what the user waits for: its verdict is due only at the decision silence (150 ms), usually
/// well before the reply's first audio, so it takes the CPU the reply leaves.
fn yield_to_the_reply() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // SAFETY: gettid and setpriority take plain integers and touch no memory of ours.
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            // Best effort: a system that refuses leaves the thread at normal priority.
            let _ = libc::setpriority(libc::PRIO_PROCESS, tid, JUDGE_NICE);
        }
    }
}

/// The judge thread's nice value (0 is normal, 19 the lowest).
#[cfg(any(target_os = "linux", target_os = "android"))]
const JUDGE_NICE: libc::c_int = 10;
