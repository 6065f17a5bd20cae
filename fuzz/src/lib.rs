//! Fuzzing on stable Rust, as ordinary `cargo test` tests (no nightly, no libFuzzer).
//!
//! A fuzz target is a test that calls [`fuzz`] with a generator (seeded [`Rng`] → input bytes,
//! usually a structure-aware mutation of a real or synthesized file, see [`mutate`]) and an
//! executor (input → runs the library on it). Each case runs under `catch_unwind`; a panic is a
//! crash: its input is saved, the run goes on, and the test fails at the end with the seed, the
//! case number and a dump. Every test binary that fuzzes declares the capped allocator
//! ([`CapAlloc`]), so an allocation sized from hostile input aborts the run with a replay line
//! instead of exhausting memory.
//!
//! Environment (all optional):
//! - `POCKET_FUZZ_SECS` — seconds per target (default 3: the CI smoke);
//! - `POCKET_FUZZ_ITERS` — most cases per target (default unbounded, the time decides);
//! - `POCKET_FUZZ_SEED` — the run's seed (default: from the clock; printed in every report);
//! - `POCKET_FUZZ_CASE` — with the seed, replay only case N (its input is written to a file);
//! - `POCKET_FUZZ_DIR` — where crash inputs go (default `$TMPDIR/pocket-fuzz`);
//! - `POCKET_FUZZ_ALLOC_CAP_MB` — largest single allocation (default 512 MiB);
//! - `POCKET_FUZZ_HANG_SECS` — a case running longer aborts the run (default 120).

mod alloc;
pub mod mutate;
mod run;

pub use alloc::CapAlloc;
pub use mutate::{Field, Kind};
/// The workspace's seeded generator (SplitMix64): a whole run follows from one printed seed.
pub use pocket_stats::Rng;
pub use run::{Report, fuzz, hex_dump, replay_dir};
