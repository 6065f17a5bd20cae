//! The pipeline's one monotonic clock: wall time in production, a step-driven virtual clock in
//! scenario tests (see `sim`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::sim::Sim;

/// Monotonic time since the pipeline started, and a way to wait on it.
///
/// `now` is lock-free and allocation-free: the audio callback calls it.
#[derive(Clone)]
pub struct Clock {
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    Real(Instant),
    #[cfg_attr(not(test), allow(dead_code))]
    Virtual(Arc<Sim>),
}

impl Clock {
    /// Wall time starting now.
    pub fn real() -> Self {
        Self {
            kind: Kind::Real(Instant::now()),
        }
    }

    /// The virtual clock of a step-driven simulation.
    #[cfg(test)]
    pub(crate) fn virtual_(sim: Arc<Sim>) -> Self {
        Self {
            kind: Kind::Virtual(sim),
        }
    }

    /// Time since the pipeline started.
    pub fn now(&self) -> Duration {
        match &self.kind {
            Kind::Real(start) => start.elapsed(),
            Kind::Virtual(sim) => sim.now(),
        }
    }

    /// Blocks the calling thread for `d` of this clock's time.
    pub fn sleep(&self, d: Duration) {
        match &self.kind {
            Kind::Real(_) => std::thread::sleep(d),
            Kind::Virtual(sim) => sim.sleep(d),
        }
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Real(_) => f.write_str("Clock::Real"),
            Kind::Virtual(_) => f.write_str("Clock::Virtual"),
        }
    }
}

/// Milliseconds as f64, the unit of every reported timestamp.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
