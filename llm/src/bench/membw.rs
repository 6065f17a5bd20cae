//! Memory read bandwidth: every thread sums its own part of a large buffer, best of five
//! passes — the ceiling for decode speed, which streams every weight once per token.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::LlmError;
use crate::kernels::{ChunkCounter, ThreadPool};

/// Largest `membw` buffer, in MiB (16 GiB).
pub const MAX_MEMBW_MIB: usize = 16 << 10;

/// A bandwidth measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bandwidth {
    /// Threads that read.
    pub threads: usize,
    /// Best bytes per second over the passes.
    pub read_bytes_per_s: f64,
}

/// 64-bit words in a buffer of `mib` MiB (1 to [`MAX_MEMBW_MIB`]).
pub fn membw_words(mib: usize) -> Result<usize, LlmError> {
    let bad = LlmError::BandwidthBuffer {
        mib,
        max: MAX_MEMBW_MIB,
    };
    if !(1..=MAX_MEMBW_MIB).contains(&mib) {
        return Err(bad);
    }
    mib.checked_mul((1 << 20) / 8).ok_or(bad)
}

/// Best of 5 passes of all `threads` summing disjoint parts of a `mib` MiB buffer.
pub fn read_bandwidth(threads: usize, mib: usize) -> Result<Bandwidth, LlmError> {
    let words = membw_words(mib)?;
    let buf: Vec<u64> = (0..words as u64).collect();
    let pool = ThreadPool::new(threads)?;
    let threads = pool.threads();
    let part = words / threads;
    let mut best = 0f64;
    for _ in 0..5 {
        let t = Instant::now();
        let sums: Vec<AtomicU64> = (0..threads).map(|_| Default::default()).collect();
        let counter = ChunkCounter::new(threads, 1);
        pool.run(|_| {
            while let Some(r) = counter.next() {
                for i in r {
                    let s = buf[i * part..(i + 1) * part]
                        .iter()
                        .fold(0u64, |acc, &v| acc.wrapping_add(v));
                    sums[i].store(s, Ordering::Relaxed);
                }
            }
        })?;
        std::hint::black_box(&sums);
        best = best.max((part * threads * 8) as f64 / t.elapsed().as_secs_f64());
    }
    Ok(Bandwidth {
        threads,
        read_bytes_per_s: best,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn membw_buffer_size_is_checked() {
        assert_eq!(membw_words(512).expect("512 MiB"), 64 << 20);
        for mib in [0, usize::MAX, usize::MAX / (1 << 20) + 1, 1 << 40] {
            let r = std::panic::catch_unwind(|| membw_words(mib));
            assert!(matches!(r, Ok(Err(_))), "--mib {mib} must be a clear error");
        }
    }
}
