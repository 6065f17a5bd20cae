//! A small persistent thread pool for the compute kernels: `run(f)` calls `f(i)` for every
//! worker index `i` in `0..threads` (index 0 on the calling thread) and returns when all are
//! done. Workers spin briefly for the next job, then sleep, so back-to-back kernel calls of a
//! decoder step do not pay a thread wake-up each.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

type Job = *const (dyn Fn(usize) + Sync);

struct Shared {
    /// Bumped once per job; workers run the job whose generation they have not yet seen.
    generation: AtomicUsize,
    /// Workers still running the current job.
    pending: AtomicUsize,
    job: Mutex<Option<SendJob>>,
    wake: Condvar,
    shutdown: std::sync::atomic::AtomicBool,
}

#[derive(Clone, Copy)]
struct SendJob(Job);
// SAFETY: the pointer is only dereferenced while `ThreadPool::run` keeps the closure alive
// (it waits until `pending` is zero before returning), and the closure is `Sync`.
unsafe impl Send for SendJob {}

/// Persistent worker threads; see the module doc.
pub struct ThreadPool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// Serializes jobs when several streams share one recognizer.
    dispatch: Mutex<()>,
    threads: usize,
}

impl std::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ThreadPool({})", self.threads)
    }
}

/// Spin iterations a worker waits for the next job before sleeping (tens of microseconds).
const SPIN: usize = 20_000;

impl ThreadPool {
    /// A pool of `threads` (at least 1) including the calling thread.
    pub fn new(threads: usize) -> Self {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            generation: AtomicUsize::new(0),
            pending: AtomicUsize::new(0),
            job: Mutex::new(None),
            wake: Condvar::new(),
            shutdown: std::sync::atomic::AtomicBool::new(false),
        });
        let workers = (1..threads)
            .map(|i| {
                let s = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("asr-worker-{i}"))
                    .spawn(move || worker(&s, i))
                    .expect("spawning a worker thread")
            })
            .collect();
        Self {
            shared,
            workers,
            dispatch: Mutex::new(()),
            threads,
        }
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `f(i)` for `i in 0..threads()`, in parallel, and waits for all.
    pub fn run(&self, f: &(dyn Fn(usize) + Sync)) {
        if self.threads == 1 {
            f(0);
            return;
        }
        let _guard = self.dispatch.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: erase the lifetime; `run` does not return before every worker finished `f`.
        let job: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(f) };
        {
            let mut slot = self.shared.job.lock().unwrap_or_else(|e| e.into_inner());
            *slot = Some(SendJob(job));
            self.shared
                .pending
                .store(self.threads - 1, Ordering::SeqCst);
            self.shared.generation.fetch_add(1, Ordering::SeqCst);
        }
        self.shared.wake.notify_all();
        f(0);
        // Spin while the workers are likely running; yield once they are probably descheduled
        // (a busy machine), so the caller does not burn the time slice they need.
        let mut spins = 0usize;
        while self.shared.pending.load(Ordering::Acquire) != 0 {
            if spins < SPIN {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        *self.shared.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

fn worker(s: &Shared, index: usize) {
    let mut seen = 0usize;
    loop {
        // Spin, then sleep, until a new generation (or shutdown) appears.
        let mut spins = 0;
        loop {
            if s.shutdown.load(Ordering::Acquire) {
                return;
            }
            if s.generation.load(Ordering::Acquire) != seen {
                break;
            }
            if spins < SPIN {
                spins += 1;
                std::hint::spin_loop();
            } else {
                let slot = s.job.lock().unwrap_or_else(|e| e.into_inner());
                if s.generation.load(Ordering::Acquire) == seen
                    && !s.shutdown.load(Ordering::Acquire)
                {
                    drop(s.wake.wait(slot).unwrap_or_else(|e| e.into_inner()));
                }
            }
        }
        seen = s.generation.load(Ordering::Acquire);
        let job = *s.job.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(SendJob(f)) = job {
            // SAFETY: see `SendJob`; `run` is blocked until `pending` reaches zero.
            unsafe { (*f)(index) };
        }
        s.pending.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        {
            let _slot = self.shared.job.lock().unwrap_or_else(|e| e.into_inner());
            self.shared.shutdown.store(true, Ordering::Release);
        }
        self.shared.wake.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// Splits `0..n` into `parts` contiguous ranges aligned to `align`; returns part `i`.
pub fn split(n: usize, parts: usize, i: usize, align: usize) -> std::ops::Range<usize> {
    let blocks = n.div_ceil(align);
    let per = blocks.div_ceil(parts.max(1));
    let start = (i * per * align).min(n);
    let end = ((i + 1) * per * align).min(n);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_every_index_many_times() {
        let pool = ThreadPool::new(3);
        let hits = AtomicUsize::new(0);
        for _ in 0..2000 {
            pool.run(&|i| {
                hits.fetch_add(i + 1, Ordering::Relaxed);
            });
        }
        assert_eq!(hits.load(Ordering::Relaxed), 2000 * 6);
    }

    #[test]
    fn split_covers_the_range() {
        for n in [0, 1, 7, 64, 100, 1537] {
            for parts in 1..4 {
                let mut next = 0;
                for i in 0..parts {
                    let r = split(n, parts, i, 16);
                    assert_eq!(r.start, next.min(n));
                    next = r.end.max(next);
                }
                assert_eq!(next, n);
            }
        }
    }
}
