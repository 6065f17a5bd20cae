//! A global allocator for fuzz test binaries that refuses allocations sized from hostile input.
//!
//! Why an allocator cap and not `setrlimit(RLIMIT_AS)` in a child process: the cap sees the
//! size of each request before any memory is touched, works the same on every platform and
//! inside the ordinary test harness (no fork/exec, no re-running the test binary), and its
//! report names the exact fuzz case. An address-space limit would also trip on large but
//! legitimate mappings (the model files are memory-mapped) and on thread stacks.
//!
//! The rule it enforces: no single allocation (or reallocation) larger than the cap
//! (`POCKET_FUZZ_ALLOC_CAP_MB`, default 512 MiB), and at most 4× the cap live at once. The
//! libraries must check sizes read from a file against the file's real size or a documented
//! cap *before* allocating, so a fuzz input never gets near this.
//!
//! A refused request cannot panic (unwinding out of an allocator is undefined behaviour): the
//! allocator prints the target, seed and case of the fuzz run on this thread (kept in
//! thread-locals by the runner, so the report itself allocates nothing) with a replay command,
//! and returns null, which makes std abort the process. Re-running with the printed
//! `POCKET_FUZZ_SEED` and `POCKET_FUZZ_CASE` writes that input to a file.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The capped allocator: `#[global_allocator] static A: CapAlloc = CapAlloc;` in a fuzz test.
#[derive(Debug)]
pub struct CapAlloc;

static CAP: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
const DEFAULT_CAP: usize = 512 << 20;

thread_local! {
    /// (target name, seed, case) of the fuzz case running on this thread.
    static CASE: Cell<Option<(&'static str, u64, u64)>> = const { Cell::new(None) };
    static REPORTING: Cell<bool> = const { Cell::new(false) };
}

/// Sets the cap (bytes); called by the runner from the environment before fuzzing.
pub(crate) fn set_cap(bytes: usize) {
    CAP.store(bytes, Ordering::Relaxed);
}

pub(crate) fn cap() -> usize {
    match CAP.load(Ordering::Relaxed) {
        0 => DEFAULT_CAP,
        c => c,
    }
}

/// Marks the case running on this thread (`None` between cases).
pub(crate) fn set_case(case: Option<(&'static str, u64, u64)>) {
    CASE.with(|c| c.set(case));
}

/// Whether a block of `size` bytes that adds `added` live bytes is allowed; if not, reports
/// it (once per thread).
fn allowed(size: usize, added: usize) -> bool {
    let cap = cap();
    let live = LIVE.load(Ordering::Relaxed);
    if size <= cap && live.saturating_add(added) <= cap.saturating_mul(4) {
        return true;
    }
    if REPORTING.with(|r| r.replace(true)) {
        return false;
    }
    let mut buf = [0u8; 512];
    let mut w = std::io::Cursor::new(&mut buf[..]);
    let _ = write!(
        w,
        "\npocket-fuzz: refused an allocation of {size} bytes ({live} live; cap {cap} per allocation, {} live)",
        cap.saturating_mul(4)
    );
    if let Some((target, seed, case)) = CASE.with(Cell::get) {
        let _ = write!(
            w,
            "\n  in fuzz target `{target}`, case {case} of seed {seed}\n  replay: POCKET_FUZZ_SEED={seed} POCKET_FUZZ_CASE={case} cargo test ... {target}\n"
        );
    } else {
        let _ = writeln!(w, " outside a fuzz case");
    }
    let n = w.position() as usize;
    let _ = std::io::stderr().write_all(&buf[..n]);
    false
}

/// Allocates a new block with `f` if the cap allows it, counting it as live.
fn checked(layout: Layout, f: impl FnOnce() -> *mut u8) -> *mut u8 {
    if !allowed(layout.size(), layout.size()) {
        return std::ptr::null_mut();
    }
    let p = f();
    if !p.is_null() {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
    }
    p
}

// SAFETY: every method forwards to `System` with the caller's layout/pointer unchanged, or
// returns null (allowed by the `GlobalAlloc` contract: it signals allocation failure).
unsafe impl GlobalAlloc for CapAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's (non-zero-size) layout.
        checked(layout, || unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        checked(layout, || unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (see `alloc`).
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !allowed(new_size, new_size.saturating_sub(layout.size())) {
            return std::ptr::null_mut();
        }
        // SAFETY: `ptr` came from `System` with `layout`; the caller guarantees `new_size`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}
