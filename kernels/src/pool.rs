//! A persistent thread pool for data-parallel kernels: workers are started once, spin briefly
//! waiting for the next job (kernels come back to back during a forward pass) and then sleep.
//! `run` offers one closure to every worker; the caller runs it too and returns once every
//! thread that joined has left, so the closure may borrow from the caller's stack. A worker
//! that wakes up late (descheduled on a busy machine) finds the job closed and skips it, so
//! the caller never waits for a thread that has not started: jobs must share their work
//! dynamically (e.g. through a [`ChunkCounter`]). No thread is spawned and nothing is
//! allocated per job. A job that panics on any thread (caller or worker) makes `run` return
//! [`KernelError::JobPanicked`]: its output is then incomplete and must not be used.

use std::any::Any;
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

/// Job state word: generation in the high 32 bits, a "closed" flag, and the number of
/// workers inside the job in the low bits.
const CLOSED: u64 = 1 << 31;
const ACTIVE: u64 = CLOSED - 1;

fn generation(state: u64) -> u64 {
    state >> 32
}

struct Shared {
    state: AtomicU64,
    /// Written by `run` while the previous job is closed and empty, read by workers only
    /// after they have entered the current job.
    job: UnsafeCell<Option<JobRef>>,
    shutdown: AtomicBool,
    /// The first worker panic of the current job: (thread index, message).
    panic: Mutex<Option<(usize, String)>>,
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

// SAFETY: `job` is written only by the thread holding `ThreadPool::run_lock` while the job
// is closed with no worker inside (so nobody reads it), and read by workers only while they
// are counted inside the open job, which `run` waits out before returning.
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
        let mut pool = ThreadPool::single();
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

    /// A pool of just the caller (`run` calls the job on the calling thread, with no lock).
    fn single() -> ThreadPool {
        ThreadPool {
            shared: Arc::new(Shared {
                state: AtomicU64::new(CLOSED),
                job: UnsafeCell::new(None),
                shutdown: AtomicBool::new(false),
                panic: Mutex::new(None),
                sleepers: AtomicUsize::new(0),
                lock: Mutex::new(()),
                wake: Condvar::new(),
            }),
            handles: Vec::new(),
            run_lock: Mutex::new(()),
        }
    }

    /// Threads that may run each job, the caller included.
    pub fn threads(&self) -> usize {
        self.handles.len() + 1
    }

    /// Runs `f(thread_index)` on the caller (index 0) and on every worker that joins before
    /// the caller's own call returns (indices `1..threads()`, each at most once), then waits
    /// for those. `f` must hand out its work dynamically: a busy worker may not join at all.
    /// Calls from several threads are serialized.
    ///
    /// Fails with [`KernelError::JobPanicked`] when `f` panicked on any thread: the work
    /// that thread had claimed is then unfinished.
    pub fn run<F: Fn(usize) + Sync>(&self, f: F) -> Result<(), KernelError> {
        if self.handles.is_empty() {
            return call(&f, 0).map_err(|p| panicked(0, &*p));
        }
        let _guard = self.run_lock.lock().unwrap_or_else(|e| e.into_inner());
        let s = &*self.shared;
        *s.panic.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let job: &(dyn Fn(usize) + Sync) = &f;
        // SAFETY: erase the lifetime; workers use the reference only while counted inside
        // the job, and `CloseGuard` waits for them before this function returns (also when
        // `f` panics on this thread).
        let job: JobRef = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), JobRef>(job) };
        // SAFETY: the previous job is closed and empty, so no worker reads `job` now.
        unsafe { *s.job.get() = Some(job) };
        let next = (generation(s.state.load(Ordering::Relaxed)) + 1) & 0xFFFF_FFFF;
        s.state.store(next << 32, Ordering::SeqCst);
        if s.sleepers.load(Ordering::SeqCst) > 0 {
            let _l = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            s.wake.notify_all();
        }
        let own = {
            let _close = CloseGuard(s);
            call(&f, 0)
        };
        // Every worker has left the job: its panic, if any, is recorded.
        let worker = s.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        match (own, worker) {
            (Err(p), _) => Err(panicked(0, &*p)),
            (Ok(()), Some((thread, message))) => Err(KernelError::JobPanicked { thread, message }),
            (Ok(()), None) => Ok(()),
        }
    }
}

/// Runs `f(index)`, catching a panic.
fn call<F: Fn(usize) + ?Sized>(f: &F, index: usize) -> Result<(), Box<dyn Any + Send>> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(index)))
}

/// The error for a job that panicked on thread `thread` with `payload`.
fn panicked(thread: usize, payload: &(dyn Any + Send)) -> KernelError {
    KernelError::JobPanicked {
        thread,
        message: panic_message(payload),
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-text panic payload".to_string()
    }
}

/// Closes the current job once no worker is inside it.
struct CloseGuard<'a>(&'a Shared);

impl Drop for CloseGuard<'_> {
    fn drop(&mut self) {
        let state = &self.0.state;
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            let cur = state.load(Ordering::Acquire);
            if cur & ACTIVE == 0
                && state
                    .compare_exchange_weak(cur, cur | CLOSED, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            {
                return;
            }
            spins = spins.wrapping_add(1);
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
        // Wait for a new job: spin first, then sleep on the condvar.
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            let cur = s.state.load(Ordering::Acquire);
            if generation(cur) != seen || s.shutdown.load(Ordering::Acquire) {
                break;
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(1024) || start.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            let mut l = s.lock.lock().unwrap_or_else(|e| e.into_inner());
            s.sleepers.fetch_add(1, Ordering::SeqCst);
            while generation(s.state.load(Ordering::SeqCst)) == seen
                && !s.shutdown.load(Ordering::SeqCst)
            {
                l = s.wake.wait(l).unwrap_or_else(|e| e.into_inner());
            }
            s.sleepers.fetch_sub(1, Ordering::SeqCst);
            drop(l);
        }
        if s.shutdown.load(Ordering::Acquire) {
            return;
        }
        // Enter the job unless it is already closed.
        let mut cur = s.state.load(Ordering::Acquire);
        seen = generation(cur);
        let entered = loop {
            if cur & CLOSED != 0 || generation(cur) != seen {
                break false;
            }
            match s
                .state
                .compare_exchange_weak(cur, cur + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break true,
                Err(now) => cur = now,
            }
        };
        if !entered {
            continue;
        }
        // SAFETY: `run` stored the job before opening this generation, and cannot close it
        // (nor return) while we are counted inside.
        if let Some(job) = unsafe { *s.job.get() } {
            let job = unsafe { &*job };
            // A panicking kernel must not leave `run` waiting forever, nor go unreported:
            // `run` reads the record once this thread has left the job.
            if let Err(p) = call(job, index) {
                let mut first = s.panic.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert_with(|| (index, panic_message(&*p)));
            }
        }
        s.state.fetch_sub(1, Ordering::Release);
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
    fn each_thread_runs_a_job_at_most_once_and_the_caller_always() {
        let pool = ThreadPool::new(3).expect("pool");
        for _ in 0..500 {
            let hits: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
            pool.run(|t| {
                hits[t].fetch_add(1, Ordering::Relaxed);
                std::hint::black_box(t);
            })
            .expect("job");
            assert_eq!(hits[0].load(Ordering::Relaxed), 1);
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) <= 1));
        }
    }

    #[test]
    fn workers_join_long_jobs() {
        let pool = ThreadPool::new(2).expect("pool");
        let hits = AtomicUsize::new(0);
        // A job that lasts until the worker has joined (bounded, for very busy machines).
        pool.run(|_| {
            hits.fetch_add(1, Ordering::Relaxed);
            let start = Instant::now();
            while hits.load(Ordering::Relaxed) < 2 && start.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .expect("job");
        assert_eq!(hits.load(Ordering::Relaxed), 2);
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
        })
        .expect("job");
        assert!(seen.iter().all(|s| s.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn workers_wake_after_sleeping() {
        let pool = ThreadPool::new(2).expect("pool");
        std::thread::sleep(Duration::from_millis(20));
        let n = AtomicUsize::new(0);
        // A job that lasts until the worker has joined (bounded, for very busy machines).
        pool.run(|_| {
            n.fetch_add(1, Ordering::Relaxed);
            let start = Instant::now();
            while n.load(Ordering::Relaxed) < 2 && start.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .expect("job");
        assert_eq!(n.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_chunk_that_panics_on_a_worker_fails_the_call() {
        let pool = ThreadPool::new(2).expect("pool");
        let joined = AtomicUsize::new(0);
        // The worker (index 1) panics once both threads are inside the job, so the panic
        // happens on a worker thread, never on the caller's.
        let outcome = pool.run(|t| {
            joined.fetch_add(1, Ordering::Relaxed);
            let start = Instant::now();
            while joined.load(Ordering::Relaxed) < 2 && start.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(1));
            }
            assert!(t == 0, "chunk of thread {t} failed");
        });
        assert_eq!(joined.load(Ordering::Relaxed), 2, "the worker never joined");
        match outcome {
            Err(KernelError::JobPanicked { thread, message }) => {
                assert_eq!(thread, 1);
                assert!(message.contains("chunk of thread 1 failed"), "{message}");
            }
            other => panic!("a worker's panic went unreported: {other:?}"),
        }
        // The pool stays usable, and the record does not leak into the next job.
        assert!(pool.run(|_| {}).is_ok());
    }

    #[test]
    fn a_chunk_that_panics_on_the_caller_fails_the_call() {
        for threads in [1, 2] {
            let pool = ThreadPool::new(threads).expect("pool");
            let outcome = pool.run(|t| assert!(t != 0, "caller's chunk failed"));
            assert!(
                matches!(outcome, Err(KernelError::JobPanicked { thread: 0, .. })),
                "{threads} threads: {outcome:?}"
            );
            assert!(pool.run(|_| {}).is_ok());
        }
    }

    #[test]
    fn single_thread_pool_runs_inline() {
        let pool = ThreadPool::new(1).expect("pool");
        let n = AtomicUsize::new(0);
        pool.run(|t| {
            assert_eq!(t, 0);
            n.fetch_add(1, Ordering::Relaxed);
        })
        .expect("job");
        assert_eq!(n.load(Ordering::Relaxed), 1);
    }
}
