//! The bounded fuzz loop: generate, run under `catch_unwind`, save crashes, report.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::{Rng, alloc};

/// Distinct crashes kept per run (a crash is identified by its panic location).
const MAX_CRASHES: usize = 16;

thread_local! {
    static IN_CASE: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// One distinct crash: where it panicked, the first input that got there.
#[derive(Debug, Clone)]
pub struct Crash {
    pub case: u64,
    pub location: String,
    pub message: String,
    pub file: PathBuf,
    pub input_len: usize,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Report {
    pub target: &'static str,
    pub seed: u64,
    pub execs: u64,
    pub secs: f64,
    pub slowest_ms: f64,
    pub crashes: Vec<Crash>,
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    match v.trim().parse() {
        Ok(n) => Some(n),
        Err(_) => panic!("{name}={v:?} is not a whole number"),
    }
}

fn env_f64(name: &str) -> Option<f64> {
    let v = std::env::var(name).ok()?;
    match v.trim().parse() {
        Ok(n) => Some(n),
        Err(_) => panic!("{name}={v:?} is not a number"),
    }
}

fn crash_dir() -> PathBuf {
    std::env::var_os("POCKET_FUZZ_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("pocket-fuzz"))
}

/// Panics inside a fuzz case are recorded, not printed (the run goes on); others print as usual.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let prev = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if IN_CASE.with(Cell::get) {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(non-string panic payload)".into());
                let location = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default();
                // Panics inside std (an index out of range) are told apart by the first
                // frame of the caller's code.
                let location = if location.starts_with("/rustc/") {
                    first_own_frame().map_or(location.clone(), |f| format!("{f} ({location})"))
                } else {
                    location
                };
                LAST_PANIC.with(|p| *p.borrow_mut() = Some((location, message)));
            } else {
                prev(info);
            }
        }));
        if let Some(mb) = env_u64("POCKET_FUZZ_ALLOC_CAP_MB") {
            alloc::set_cap((mb as usize).saturating_mul(1 << 20));
        }
    });
}

/// `file:line` of the innermost backtrace frame outside std and this crate.
fn first_own_frame() -> Option<String> {
    let bt = std::backtrace::Backtrace::force_capture().to_string();
    bt.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("at "))
        .find(|l| !l.starts_with("/rustc/") && !l.contains("/fuzz/src/"))
        .map(str::to_string)
}

/// Runs `exec` on `input` as a fuzz case; `Some((location, message))` if it panicked.
fn run_case(exec: &impl Fn(&[u8]), input: &[u8]) -> Option<(String, String)> {
    IN_CASE.with(|c| c.set(true));
    let r = panic::catch_unwind(AssertUnwindSafe(|| exec(input)));
    IN_CASE.with(|c| c.set(false));
    match r {
        Ok(()) => None,
        Err(_) => Some(
            LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_default(),
        ),
    }
}

/// The first bytes of `input` in hex, 32 a line.
pub fn hex_dump(input: &[u8]) -> String {
    let mut s = format!("{} bytes:\n", input.len());
    for (i, line) in input.chunks(32).take(8).enumerate() {
        s.push_str(&format!("  {:04x}:", i * 32));
        for b in line {
            s.push_str(&format!(" {b:02x}"));
        }
        s.push('\n');
    }
    if input.len() > 256 {
        s.push_str("  ...\n");
    }
    s
}

/// Fuzzes `target`: `generate` makes each case's input from the run's PRNG, `exec` runs the library
/// on it and panics on a broken invariant. Runs until `POCKET_FUZZ_SECS` (default 3) or
/// `POCKET_FUZZ_ITERS`; prints a summary line; panics at the end if any case crashed.
///
/// The generator must draw only from the `Rng` it is given (not from `exec`'s results), so a
/// seed and a case number identify an input: `POCKET_FUZZ_SEED=s POCKET_FUZZ_CASE=n` replays
/// just that case and writes its input to `POCKET_FUZZ_DIR`.
pub fn fuzz(
    target: &'static str,
    mut generate: impl FnMut(&mut Rng) -> Vec<u8>,
    exec: impl Fn(&[u8]),
) -> Report {
    install_hook();
    let seed = env_u64("POCKET_FUZZ_SEED").unwrap_or_else(|| {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        t ^ u64::from(std::process::id()).rotate_left(32)
    });
    let secs = env_f64("POCKET_FUZZ_SECS").unwrap_or(3.0);
    let max_iters = env_u64("POCKET_FUZZ_ITERS").unwrap_or(u64::MAX);
    let only = env_u64("POCKET_FUZZ_CASE");
    let hang = Duration::from_secs_f64(env_f64("POCKET_FUZZ_HANG_SECS").unwrap_or(120.0));
    let dir = crash_dir();
    let mut rng = Rng::new(seed);
    let mut report = Report {
        target,
        seed,
        execs: 0,
        secs: 0.0,
        slowest_ms: 0.0,
        crashes: Vec::new(),
    };
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs_f64(secs);
    // Watchdog: case number and start (ms since t0, u64::MAX when idle) of the running case.
    let running = AtomicU64::new(u64::MAX);
    let case_no = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    /// Stops the watchdog also when a replayed case panics out of the scope.
    struct Done<'a>(&'a AtomicBool);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    std::thread::scope(|s| {
        let _done = Done(&done);
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let start = running.load(Ordering::Relaxed);
                let now = t0.elapsed().as_millis() as u64;
                if start != u64::MAX && now.saturating_sub(start) > hang.as_millis() as u64 {
                    let case = case_no.load(Ordering::Relaxed);
                    eprintln!(
                        "\npocket-fuzz: target `{target}` case {case} of seed {seed} ran over {} s: a hang\n  replay: POCKET_FUZZ_SEED={seed} POCKET_FUZZ_CASE={case} cargo test ... {target}",
                        hang.as_secs()
                    );
                    std::process::abort();
                }
            }
        });
        let mut case = 0u64;
        while case < max_iters && (only.is_some() || Instant::now() < deadline) {
            let input = generate(&mut rng);
            if only.is_some_and(|n| n != case) {
                case += 1;
                continue;
            }
            if only.is_some() {
                let _ = std::fs::create_dir_all(&dir);
                let file = dir.join(format!("{target}-{seed}-{case}.bin"));
                let _ = std::fs::write(&file, &input);
                eprintln!("fuzz {target}: case {case} written to {}", file.display());
            }
            if only.is_some() {
                // Replay: no catching, so the panic prints with its backtrace.
                exec(&input);
                report.execs += 1;
                break;
            }
            case_no.store(case, Ordering::Relaxed);
            alloc::set_case(Some((target, seed, case)));
            let start = Instant::now();
            running.store(t0.elapsed().as_millis() as u64, Ordering::Relaxed);
            let crashed = run_case(&exec, &input);
            running.store(u64::MAX, Ordering::Relaxed);
            alloc::set_case(None);
            report.slowest_ms = report.slowest_ms.max(start.elapsed().as_secs_f64() * 1e3);
            report.execs += 1;
            if let Some((location, message)) = crashed
                && report.crashes.len() < MAX_CRASHES
                && !report.crashes.iter().any(|c| c.location == location)
            {
                let _ = std::fs::create_dir_all(&dir);
                let file = dir.join(format!("{target}-{seed}-{case}.bin"));
                let _ = std::fs::write(&file, &input);
                eprintln!(
                    "fuzz {target}: CRASH at case {case}: {message} ({location}); input saved to {}\n{}",
                    file.display(),
                    hex_dump(&input)
                );
                report.crashes.push(Crash {
                    case,
                    location,
                    message,
                    file,
                    input_len: input.len(),
                });
            }
            case += 1;
        }
    });
    report.secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "fuzz {target}: seed {seed}: {} executions in {:.1} s ({:.0}/s), {} crashes, slowest case {:.1} ms",
        report.execs,
        report.secs,
        report.execs as f64 / report.secs.max(1e-9),
        report.crashes.len(),
        report.slowest_ms
    );
    if !report.crashes.is_empty() {
        let list: Vec<String> = report
            .crashes
            .iter()
            .map(|c| {
                format!(
                    "  case {}: {} at {} ({} bytes in {})",
                    c.case,
                    c.message,
                    c.location,
                    c.input_len,
                    c.file.display()
                )
            })
            .collect();
        panic!(
            "fuzz target `{target}` crashed ({} distinct), seed {seed} (POCKET_FUZZ_SEED={seed} repeats the run):\n{}",
            report.crashes.len(),
            list.join("\n")
        );
    }
    report
}

/// Runs `exec` on every file in `dir` (committed regression inputs, if the folder exists);
/// panics naming the file if one crashes. Returns how many files ran.
pub fn replay_dir(dir: &Path, exec: impl Fn(&[u8])) -> usize {
    install_hook();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    for f in &files {
        let input = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if let Some((location, message)) = run_case(&exec, &input) {
            panic!(
                "regression input {} crashes again: {message} at {location}\n{}",
                f.display(),
                hex_dump(&input)
            );
        }
    }
    files.len()
}
