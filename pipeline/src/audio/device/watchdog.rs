//! When a device stream counts as lost, and when to try opening a new one: pure decisions over
//! the counters a stream's callbacks keep, so they are tested without sound hardware.
//!
//! What cpal's ALSA backend does when the sound server drops a stream (the PulseAudio sink or
//! source is unloaded, the server restarts): no `DeviceNotAvailable`, but the data callbacks
//! stop and the error callback fires in a tight loop (`snd_pcm_poll_descriptors_revents` EIO,
//! ~300,000 a second) until the stream is dropped. A hot-unplugged `hw:` device does the same
//! with POLLERR. So a stream whose errors keep coming while its callbacks have stopped is lost.

use std::time::{Duration, Instant};

/// Errors and no callback for this long: the stream is dead.
pub(super) const DEAD_AFTER: Duration = Duration::from_millis(300);
/// The playback monitor declared the output down and no callback ran for this long.
pub(super) const DECLARED_AFTER: Duration = Duration::from_secs(1);
/// No callback at all for this long, errors or not (a wedged stream). Longer than the ~2 s
/// the ALSA PulseAudio plugin may sit between its first callbacks.
pub(super) const SILENT_AFTER: Duration = Duration::from_secs(5);
/// Waits between attempts to open the new default device after a loss.
const RETRY: [Duration; 3] = [
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_secs(1),
];

/// One look at a stream's counters.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Reading {
    pub calls: u64,
    pub errors: u64,
    pub not_available: bool,
    /// The playback monitor has declared the output down (always `false` for an input).
    pub declared_down: bool,
}

/// What the watchdog makes of a reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    Alive,
    /// `report`: tell the user (false when the monitor already did).
    Lost {
        why: &'static str,
        report: bool,
    },
}

/// Watches one open stream.
#[derive(Debug)]
pub(super) struct Watchdog {
    calls: u64,
    errors_at_progress: u64,
    progress_at: Instant,
}

impl Watchdog {
    /// A stream opened at `now`.
    pub(super) fn new(now: Instant) -> Self {
        Self {
            calls: 0,
            errors_at_progress: 0,
            progress_at: now,
        }
    }

    pub(super) fn check(&mut self, now: Instant, r: Reading) -> Verdict {
        if r.calls != self.calls {
            self.calls = r.calls;
            self.errors_at_progress = r.errors;
            self.progress_at = now;
        }
        let quiet = now.saturating_duration_since(self.progress_at);
        if r.not_available {
            Verdict::Lost {
                why: "the device was removed",
                report: true,
            }
        } else if r.errors > self.errors_at_progress && quiet >= DEAD_AFTER {
            Verdict::Lost {
                why: "the device stopped with errors (removed, or the sound server dropped it)",
                report: true,
            }
        } else if r.declared_down && quiet >= DECLARED_AFTER {
            Verdict::Lost {
                why: "the output stopped playing",
                report: false,
            }
        } else if quiet >= SILENT_AFTER {
            Verdict::Lost {
                why: "the device stopped delivering audio",
                report: true,
            }
        } else {
            Verdict::Alive
        }
    }
}

/// When the next attempt to open a lost device is due.
#[derive(Debug)]
pub(super) struct Backoff {
    failures: usize,
    next: Instant,
}

impl Backoff {
    /// The device was lost at `now`.
    pub(super) fn new(now: Instant) -> Self {
        Self {
            failures: 0,
            next: now + RETRY[0],
        }
    }

    pub(super) fn due(&self, now: Instant) -> bool {
        now >= self.next
    }

    /// An attempt at `now` failed.
    pub(super) fn failed(&mut self, now: Instant) {
        self.failures += 1;
        self.next = now + RETRY[self.failures.min(RETRY.len() - 1)];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    fn reading(calls: u64, errors: u64) -> Reading {
        Reading {
            calls,
            errors,
            ..Reading::default()
        }
    }

    #[test]
    fn a_stream_that_calls_back_is_alive_despite_odd_errors() {
        let t0 = Instant::now();
        let mut w = Watchdog::new(t0);
        for i in 1..100 {
            // An error now and then (an xrun), callbacks every 20 ms.
            assert_eq!(w.check(ms(t0, i * 20), reading(i, i / 10)), Verdict::Alive);
        }
    }

    #[test]
    fn errors_without_callbacks_mean_lost_after_dead_after() {
        let t0 = Instant::now();
        let mut w = Watchdog::new(t0);
        assert_eq!(w.check(ms(t0, 10), reading(5, 0)), Verdict::Alive);
        assert_eq!(w.check(ms(t0, 100), reading(5, 90_000)), Verdict::Alive);
        let v = w.check(
            ms(t0, 10 + DEAD_AFTER.as_millis() as u64),
            reading(5, 200_000),
        );
        assert!(matches!(v, Verdict::Lost { report: true, .. }), "{v:?}");
    }

    #[test]
    fn not_available_is_lost_at_once() {
        let t0 = Instant::now();
        let mut w = Watchdog::new(t0);
        let r = Reading {
            not_available: true,
            ..reading(1, 0)
        };
        assert!(matches!(w.check(t0, r), Verdict::Lost { report: true, .. }));
    }

    #[test]
    fn a_declared_stall_is_reopened_without_a_second_report() {
        let t0 = Instant::now();
        let mut w = Watchdog::new(t0);
        let down = Reading {
            declared_down: true,
            ..reading(3, 0)
        };
        assert_eq!(w.check(ms(t0, 10), down), Verdict::Alive);
        assert_eq!(w.check(ms(t0, 500), down), Verdict::Alive);
        let v = w.check(ms(t0, 1010), down);
        assert!(matches!(v, Verdict::Lost { report: false, .. }), "{v:?}");
    }

    #[test]
    fn silence_without_errors_is_lost_only_after_silent_after() {
        let t0 = Instant::now();
        let mut w = Watchdog::new(t0);
        assert_eq!(w.check(ms(t0, 2500), reading(0, 0)), Verdict::Alive);
        let v = w.check(ms(t0, SILENT_AFTER.as_millis() as u64), reading(0, 0));
        assert!(matches!(v, Verdict::Lost { report: true, .. }), "{v:?}");
    }

    #[test]
    fn backoff_waits_longer_then_steadies_at_a_second() {
        let t0 = Instant::now();
        let mut b = Backoff::new(t0);
        assert!(!b.due(ms(t0, 249)));
        assert!(b.due(ms(t0, 250)));
        b.failed(ms(t0, 250));
        assert!(!b.due(ms(t0, 749)));
        assert!(b.due(ms(t0, 750)));
        b.failed(ms(t0, 750));
        b.failed(ms(t0, 1750));
        assert!(!b.due(ms(t0, 2749)));
        assert!(b.due(ms(t0, 2750)));
    }
}
