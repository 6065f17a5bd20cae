//! The playback monitor: turns the output's atomics (the callback cannot send messages) into
//! reports — audio started, finished, where a reply was cut off, and an output that stopped
//! consuming (no callback for `timeout` after it had played) or plays again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::Report;
use crate::chan::Tx;
use crate::clock::Clock;
use crate::ring::PlaybackState;
use crate::types::TurnId;

pub(crate) struct Monitor {
    pub(crate) state: Arc<PlaybackState>,
    pub(crate) report: Tx<Report>,
    pub(crate) clock: Clock,
    pub(crate) period: Duration,
    /// See `PipelineConfig::output_timeout`.
    pub(crate) timeout: Duration,
    pub(crate) running: Arc<AtomicBool>,
}

impl Monitor {
    pub(crate) fn run(self) {
        let st = &*self.state;
        let mut started = 0u64;
        let mut done = 0u64;
        let mut applied = 0u64;
        let mut total = 0u64;
        // Armed once the output has consumed something: an output attached later (or a
        // pipeline not yet given one) is not a stalled one.
        let mut last_progress: Option<Duration> = None;
        let mut stalled = false;
        while self.running.load(Ordering::Acquire) {
            let now = self.clock.now();
            let total_now = st.total_samples.load(Ordering::Relaxed);
            if total_now != total {
                total = total_now;
                last_progress = Some(now);
                stalled = false;
                if st.output_down.swap(false, Ordering::AcqRel) {
                    self.report.send(Report::OutputResumed);
                }
            } else if !stalled
                && last_progress.is_some_and(|t| now.saturating_sub(t) >= self.timeout)
            {
                stalled = true;
                st.output_down.store(true, Ordering::Release);
                self.report.send(Report::OutputStalled);
            }
            let applied_now = st.applied_epoch.load(Ordering::Acquire);
            if applied_now != applied {
                applied = applied_now;
                let cut_turn = st.stopped_turn.swap(0, Ordering::AcqRel);
                let cut = (cut_turn != 0).then(|| {
                    (
                        TurnId(cut_turn),
                        st.stopped_samples.load(Ordering::Relaxed),
                        Duration::from_micros(st.stopped_at_us.load(Ordering::Relaxed)),
                    )
                });
                self.report.send(Report::PlaybackStopped {
                    epoch: applied,
                    cut,
                });
            }
            let cur = st.cur_turn.load(Ordering::Acquire);
            if cur != started && cur != 0 {
                started = cur;
                let at = Duration::from_micros(st.first_audio_us.load(Ordering::Relaxed));
                self.report.send(Report::AudioStarted {
                    turn: TurnId(cur),
                    at,
                });
            }
            let d = st.done_turn.load(Ordering::Acquire);
            if d != done && d != 0 && d == started {
                done = d;
                self.report.send(Report::AudioFinished { turn: TurnId(d) });
            }
            self.clock.sleep(self.period);
        }
    }
}
