//! Step-driven simulation support: a virtual clock and one "outstanding work" counter, so a test
//! can advance time in ticks and wait until every actor is idle — deterministic, no sleeps.
//!
//! The counter (`work`) counts running threads plus messages sent and not yet received. A thread
//! is running from spawn until it blocks on an empty mailbox or on the virtual clock; a message
//! received by a blocked thread turns its unit into the thread's running unit. So `work == 0`
//! means: nothing runnable and nothing in flight until the clock moves. In production the
//! counter does not exist (`Activity::none`) and nothing is counted.
//!
//! One refinement: a message queued for a thread that sleeps on the clock (say a "truncate"
//! sent to the language model while it waits for its next token) cannot be acted on before the
//! clock moves, so `settle` does not wait for it. Each actor thread registers a probe of its
//! inbox length; sleepers carry it.

// Only the scenario tests construct a simulation; production code sees `Activity::none()`.
#![cfg_attr(not(test), allow(dead_code))]

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// Virtual time plus the work counter.
pub(crate) struct Sim {
    now_us: AtomicU64,
    work: AtomicI64,
    /// Every change of `work` so far (it only grows): progress, even when `work` comes back
    /// to the same value.
    changes: AtomicU64,
    waiters: Mutex<Vec<Waiter>>,
    /// Threads spawned through [`Activity::spawn`] that have not returned.
    threads: AtomicI64,
}

struct Waiter {
    deadline_us: u64,
    thread: Thread,
    woken: Arc<AtomicBool>,
    inbox: Option<Probe>,
}

/// Counts the messages waiting in a thread's inbox.
pub(crate) type Probe = Arc<dyn Fn() -> usize + Send + Sync>;

thread_local! {
    static INBOX: std::cell::RefCell<Option<Probe>> = const { std::cell::RefCell::new(None) };
}

/// Registers the calling thread's inbox probe (once per thread).
pub(crate) fn register_inbox(make: impl FnOnce() -> Probe) {
    INBOX.with(|p| {
        let mut p = p.borrow_mut();
        if p.is_none() {
            *p = Some(make());
        }
    });
}

impl Sim {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            now_us: AtomicU64::new(0),
            work: AtomicI64::new(0),
            changes: AtomicU64::new(0),
            waiters: Mutex::new(Vec::new()),
            threads: AtomicI64::new(0),
        })
    }

    pub(crate) fn now(&self) -> Duration {
        Duration::from_micros(self.now_us.load(Ordering::Acquire))
    }

    /// Parks the caller until the harness advances the clock past `now + d`.
    pub(crate) fn sleep(&self, d: Duration) {
        let woken = Arc::new(AtomicBool::new(false));
        {
            let mut waiters = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
            let deadline_us = self.now_us.load(Ordering::Acquire) + d.as_micros() as u64;
            waiters.push(Waiter {
                deadline_us,
                thread: std::thread::current(),
                woken: woken.clone(),
                inbox: INBOX.with(|p| p.borrow().clone()),
            });
            // Idle from here on; the harness gives the unit back before waking us.
            self.work.fetch_sub(1, Ordering::AcqRel);
        }
        while !woken.load(Ordering::Acquire) {
            std::thread::park();
        }
    }

    /// Moves the clock to `t` and wakes every sleeper whose deadline passed.
    pub(crate) fn advance_to(&self, t: Duration) {
        let t_us = t.as_micros() as u64;
        let mut waiters = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
        self.now_us.store(t_us, Ordering::Release);
        let mut i = 0;
        while i < waiters.len() {
            if waiters[i].deadline_us <= t_us {
                let w = waiters.swap_remove(i);
                self.work.fetch_add(1, Ordering::AcqRel);
                w.woken.store(true, Ordering::Release);
                w.thread.unpark();
            } else {
                i += 1;
            }
        }
    }

    /// Waits (spinning, no sleep) until nothing is runnable or in flight.
    ///
    /// # Panics
    /// If the pipeline makes no progress (the work count does not change) for 20 s of wall
    /// time: a deadlock in a test. A slow machine only makes it take longer (a CI run under
    /// load average 5 once took over 20 s to settle an echo scenario that was still working).
    pub(crate) fn settle(&self) {
        let mut start = Instant::now();
        let mut spins = 0u32;
        let mut last = None;
        loop {
            let runnable = {
                let waiters = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
                let parked: usize = waiters
                    .iter()
                    .filter_map(|w| w.inbox.as_ref())
                    .map(|probe| probe())
                    .sum();
                self.work.load(Ordering::Acquire) - parked as i64
            };
            // Once every thread has returned nothing can run: a message stranded in the
            // queue of an actor that stopped at shutdown (with audio or a chunk in flight)
            // would otherwise keep the count above zero for good.
            if runnable == 0 || self.threads.load(Ordering::Acquire) == 0 {
                return;
            }
            let changes = self.changes.load(Ordering::Acquire);
            if last != Some(changes) {
                last = Some(changes);
                start = Instant::now();
            }
            spins += 1;
            if spins.is_multiple_of(1024) && start.elapsed() > Duration::from_secs(20) {
                panic!("simulation did not settle (runnable work = {runnable})");
            }
            std::thread::yield_now();
        }
    }
}

/// The work accounting hooks; `none()` in production.
#[derive(Clone, Default)]
pub(crate) struct Activity(Option<Arc<Sim>>);

impl Activity {
    pub(crate) fn none() -> Self {
        Self(None)
    }

    pub(crate) fn of(sim: Option<&Arc<Sim>>) -> Self {
        Self(sim.cloned())
    }

    /// Whether a simulation is counting.
    pub(crate) fn is_sim(&self) -> bool {
        self.0.is_some()
    }

    fn add(&self, n: i64) {
        if let Some(sim) = &self.0 {
            sim.work.fetch_add(n, Ordering::AcqRel);
            sim.changes.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// A counted thread starts (`1`) or returns (`-1`).
    fn count_thread(&self, n: i64) {
        if let Some(sim) = &self.0 {
            sim.threads.fetch_add(n, Ordering::AcqRel);
        }
    }

    /// A message is about to be sent, or a thread is about to be spawned.
    pub(crate) fn begin(&self) {
        self.add(1);
    }

    /// A message was received by a running thread, a send failed, a thread ends or blocks.
    pub(crate) fn end(&self) {
        self.add(-1);
    }

    /// Spawns a named thread that counts as running until it blocks or returns.
    pub(crate) fn spawn<F>(&self, name: &str, f: F) -> std::io::Result<std::thread::JoinHandle<()>>
    where
        F: FnOnce() + Send + 'static,
    {
        self.begin();
        self.count_thread(1);
        let me = self.clone();
        let spawned = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                f();
                me.count_thread(-1);
                me.end();
            });
        if spawned.is_err() {
            self.count_thread(-1);
            self.end();
        }
        spawned
    }
}
