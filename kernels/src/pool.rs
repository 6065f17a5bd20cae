//! A persistent thread pool for data-parallel kernels: workers are started once, spin briefly
//! waiting for the next job (kernels come back to back during a forward pass) and then sleep.
//! `run` broadcasts one closure to every thread (the caller is thread 0) and returns when all
//! have finished it, so the closure may borrow from the caller's stack. No thread is spawned
//! and nothing is allocated per job.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::KernelError;

/// How long an idle worker spins before it sleeps.
const SPIN: Duration = Duration::from_micros(300);

/// The job: a type-erased `&(dyn Fn(usize) + Sync)` that lives for one `run` call.
type JobRef = *const (dyn Fn(usize) + Sync);

struct Shared {
    /// Bumped once per job; workers wait for it to change.
    generation: AtomicU64,
    /// Workers still running the current job.
    pending: AtomicUsize,
    /// Written by `run` before `generation` is bumped, read by workers after they see it.
    job: UnsafeCell<Option<JobRef>>,
    shutdown: AtomicBool,
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

// SAFETY: `job` is written only by the thread holding `ThreadPool::run_lock` while no worker
// reads it (all finished the previous job: `pending == 0`), and read by workers only between
// the generation bump (Release/Acquire) and their `pending` decrement.
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

/// A fixed set of worker threads; `threads()` counts the caller too.
pub struct ThreadPool {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
    run_lock: Mutex<()>,
}

impl std::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadPool")
            .field("threads", &self.threads())
            .finish()
    }
}

impl ThreadPool {
    /// A pool of `threads` threads in all (the caller of `run` plus `threads - 1` workers).
    /// `0` means one per available CPU.
    pub fn new(threads: usize) -> Result<ThreadPool, KernelError> {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            pending: AtomicUsize::new(0),
            job: UnsafeCell::new(None),
            shutdown: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        });
        let mut pool = ThreadPool {
            shared,
            handles: Vec::new(),
            run_lock: Mutex::new(()),
        };
        for index in 1..threads {
            let shared = Arc::clone(&pool.shared);
            let handle = std::thread::Builder::new()
                .name(format!("pocket-kernel-{index}"))
                .spawn(move || worker(&shared, index))
                .map_err(KernelError::Thread)?;
            pool.handles.push(handle);
        }
        Ok(pool)
    }

    /// Threads that run each job, the caller included.
    pub fn threads(&self) -> usize {
        self.handles.len() + 1
    }

    /// Runs `f(thread_index)` once on every thread (`0..threads()`, the caller is 0) and
    /// waits for all of them. Calls from several threads are serialized.
    pub fn run<F: Fn(usize) + Sync>(&self, f: F) {
        if self.handles.is_empty() {
            f(0);
            return;
        }
        let _guard = self.run_lock.lock().unwrap_or_else(|e| e.into_inner());
        let s = &*self.shared;
        let job: &(dyn Fn(usize) + Sync) = &f;
        // SAFETY: erase the lifetime; the reference is only used until `pending` reaches 0,
        // which happens before this function returns (we wait for it below, even if `f`
        // panics on this thread: see `WaitGuard`).
        let job: JobRef = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), JobRef>(job) };
        // SAFETY: no worker reads `job` now: every one finished the previous job.
        unsafe { *s.job.get() = Some(job) };
        s.pending.store(self.handles.len(), Ordering::Relaxed);
        s.generation.fetch_add(1, Ordering::SeqCst);
        if s.sleepers.load(Ordering::SeqCst) > 0 {
            let _l = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            s.wake.notify_all();
        }
        let _wait = WaitGuard(s);
        f(0);
    }
}

/// Waits for the workers of the current job, also when the caller's share panics.
struct WaitGuard<'a>(&'a Shared);

impl Drop for WaitGuard<'_> {
    fn drop(&mut self) {
        let start = Instant::now();
        let mut spins = 0u32;
        while self.0.pending.load(Ordering::Acquire) != 0 {
            spins += 1;
            if spins < 1 << 16 || start.elapsed() < SPIN {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

fn worker(s: &Shared, index: usize) {
    let mut seen = 0u64;
    loop {
        // Wait for a new generation: spin first, then sleep on the condvar.
        let start = Instant::now();
        let mut spins = 0u32;
        let generation = loop {
            let g = s.generation.load(Ordering::Acquire);
            if g != seen || s.shutdown.load(Ordering::Acquire) {
                break g;
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(1024) || start.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            let mut l = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            s.sleepers.fetch_add(1, Ordering::SeqCst);
            while s.generation.load(Ordering::SeqCst) == seen && !s.shutdown.load(Ordering::SeqCst)
            {
                l = s.wake.wait(l).unwrap_or_else(|e| e.into_inner());
            }
            s.sleepers.fetch_sub(1, Ordering::SeqCst);
            drop(l);
        };
        if s.shutdown.load(Ordering::Acquire) {
            return;
        }
        seen = generation;
        // SAFETY: `run` stored the job before bumping the generation (Release, paired with
        // our Acquire load) and keeps it alive until `pending` reaches 0.
        if let Some(job) = unsafe { *s.job.get() } {
            let job = unsafe { &*job };
            // A panicking kernel must not leave `run` waiting forever.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(index)));
        }
        s.pending.fetch_sub(1, Ordering::Release);
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        {
            let _l = self.shared.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.shared.wake.notify_all();
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// Hands out `0..n` in chunks of `chunk` to whichever thread asks first (dynamic load
/// balancing without per-job allocation). Create one per job, share it by reference.
#[derive(Debug)]
pub struct ChunkCounter {
    next: AtomicUsize,
    n: usize,
    chunk: usize,
}

impl ChunkCounter {
    pub fn new(n: usize, chunk: usize) -> ChunkCounter {
        ChunkCounter {
            next: AtomicUsize::new(0),
            n,
            chunk: chunk.max(1),
        }
    }

    /// The next unclaimed range, or `None` when all are taken.
    #[inline]
    pub fn next(&self) -> Option<std::ops::Range<usize>> {
        let start = self.next.fetch_add(self.chunk, Ordering::Relaxed);
        (start < self.n).then(|| start..(start + self.chunk).min(self.n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_thread_runs_each_job_once() {
        let pool = ThreadPool::new(3).expect("pool");
        for round in 0..200 {
            let hits: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
            pool.run(|t| {
                hits[t].fetch_add(round + 1, Ordering::Relaxed);
            });
            for h in &hits {
                assert_eq!(h.load(Ordering::Relaxed), round + 1);
            }
        }
    }

    #[test]
    fn chunks_cover_the_range_exactly_once() {
        let pool = ThreadPool::new(2).expect("pool");
        let seen: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
        let counter = ChunkCounter::new(1000, 7);
        pool.run(|_| {
            while let Some(r) = counter.next() {
                for i in r {
                    seen[i].fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        assert!(seen.iter().all(|s| s.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn workers_wake_after_sleeping() {
        let pool = ThreadPool::new(2).expect("pool");
        std::thread::sleep(Duration::from_millis(20));
        let n = AtomicUsize::new(0);
        pool.run(|_| {
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(n.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn single_thread_pool_runs_inline() {
        let pool = ThreadPool::new(1).expect("pool");
        let n = AtomicUsize::new(0);
        pool.run(|t| {
            assert_eq!(t, 0);
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(n.load(Ordering::Relaxed), 1);
    }
}
