//! [`RegionCounter`]: hands out `0..n` so that each thread walks its own contiguous region
//! front to back, in claims that shrink towards the region's end, and helps with the others'
//! regions only once its own is done.
//!
//! Why: a one-token product is a memory stream, and a stream that breaks costs a full memory
//! latency plus a cold prefetcher. Claims shared by all threads (this engine's scheme before)
//! interleave the threads' claims, so each thread's stream breaks at every claim; with
//! regions, a thread's claims follow each other in memory until it runs out of work. Balance
//! stays dynamic: a thread that is descheduled (or never joins) leaves its region to the
//! others, chunk by chunk.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most regions one counter keeps (more threads share them).
pub(crate) const MAX_REGIONS: usize = 16;

/// One cursor per cache line, so threads claiming in different regions do not contend.
#[repr(align(64))]
#[derive(Debug, Default)]
struct Cursor(AtomicUsize);

/// Create one per job, share it by reference; each thread keeps its own [`RegionWalk`].
#[derive(Debug)]
pub(crate) struct RegionCounter {
    cursors: [Cursor; MAX_REGIONS],
    ends: [usize; MAX_REGIONS],
    regions: usize,
    chunk: usize,
    div: usize,
}

/// A thread's place in a [`RegionCounter`]: the region it claims from now, and how many it
/// has found empty.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RegionWalk {
    region: usize,
    exhausted: usize,
}

impl RegionCounter {
    /// `0..n` cut into `regions` (1..=[`MAX_REGIONS`]) nearly equal contiguous regions. Each
    /// claim takes `1 / div` of what is left of its region, but at least `chunk` items: long
    /// runs first, short ones at the end where threads meet.
    pub(crate) fn new(n: usize, regions: usize, chunk: usize, div: usize) -> RegionCounter {
        let regions = regions.clamp(1, MAX_REGIONS);
        let cursors: [Cursor; MAX_REGIONS] = Default::default();
        let mut ends = [0; MAX_REGIONS];
        for r in 0..regions {
            cursors[r].0.store(r * n / regions, Ordering::Relaxed);
            ends[r] = (r + 1) * n / regions;
        }
        RegionCounter {
            cursors,
            ends,
            regions,
            chunk: chunk.max(1),
            div: div.max(1),
        }
    }

    /// Where thread `thread` starts: its own region.
    pub(crate) fn walk(&self, thread: usize) -> RegionWalk {
        RegionWalk {
            region: thread % self.regions,
            exhausted: 0,
        }
    }

    /// The next unclaimed range for the thread at `walk`: from its current region while that
    /// lasts, then from the next regions in turn; `None` once every region is claimed.
    #[inline]
    pub(crate) fn next(&self, walk: &mut RegionWalk) -> Option<Range<usize>> {
        while walk.exhausted < self.regions {
            let r = walk.region;
            let end = self.ends[r];
            // A claim never moves a cursor past its region's end.
            let cursor = &self.cursors[r].0;
            let mut cur = cursor.load(Ordering::Relaxed);
            while cur < end {
                let take = ((end - cur) / self.div).max(self.chunk);
                let stop = (cur + take).min(end);
                match cursor.compare_exchange_weak(cur, stop, Ordering::Relaxed, Ordering::Relaxed)
                {
                    Ok(_) => return Some(cur..stop),
                    Err(now) => cur = now,
                }
            }
            walk.exhausted += 1;
            walk.region = (r + 1) % self.regions;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadPool;

    #[test]
    fn regions_cover_the_range_exactly_once() {
        let pool = ThreadPool::new(3).expect("pool");
        for (n, regions, chunk, div) in [
            (1000, 3, 7, 2),
            (5, 4, 1, 1),
            (0, 2, 3, 2),
            (100, 1, 200, 2),
            (64, 40, 2, 3),
            (1000, 2, 1, 1000),
        ] {
            let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            let counter = RegionCounter::new(n, regions, chunk, div);
            let per_region = n.div_ceil(regions.clamp(1, MAX_REGIONS));
            pool.run(|t| {
                let mut walk = counter.walk(t);
                while let Some(r) = counter.next(&mut walk) {
                    assert!(!r.is_empty() && r.len() <= per_region.div_ceil(div).max(chunk));
                    for i in r {
                        seen[i].fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
            .expect("job");
            assert!(
                seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                "{n} {regions} {chunk} {div}"
            );
        }
    }

    #[test]
    fn a_lone_thread_walks_its_region_then_the_others_in_order() {
        let c = RegionCounter::new(12, 3, 2, 1000);
        let mut walk = c.walk(1);
        let got: Vec<Range<usize>> = std::iter::from_fn(|| c.next(&mut walk)).collect();
        assert_eq!(got, [4..6, 6..8, 8..10, 10..12, 0..2, 2..4]);
    }

    #[test]
    fn claims_shrink_towards_the_region_end() {
        let c = RegionCounter::new(128, 2, 2, 2);
        let mut walk = c.walk(0);
        let got: Vec<Range<usize>> = std::iter::from_fn(|| c.next(&mut walk)).take(6).collect();
        assert_eq!(got, [0..32, 32..48, 48..56, 56..60, 60..62, 62..64]);
    }

    #[test]
    fn claims_stay_contiguous_within_a_region_while_two_threads_share_it() {
        let c = RegionCounter::new(8, 2, 1, 100);
        let (mut a, mut b) = (c.walk(0), c.walk(1));
        assert_eq!(c.next(&mut a), Some(0..1));
        assert_eq!(c.next(&mut b), Some(4..5));
        assert_eq!(c.next(&mut a), Some(1..2));
        for _ in 0..3 {
            c.next(&mut b);
        }
        // b's region is done: b helps in a's, after a's claims.
        assert_eq!(c.next(&mut b), Some(2..3));
        assert_eq!(c.next(&mut a), Some(3..4));
        assert_eq!(c.next(&mut a), None);
        assert_eq!(c.next(&mut b), None);
    }
}
