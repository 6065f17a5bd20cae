//! A tiny seeded generator (SplitMix64) for VoiceBench's "random choice when nothing parses".

/// Deterministic stand-in for Python's unseeded `random.choice` in the scorers: the same seed
/// and the same order of records give the same fallback picks on every machine.
#[derive(Debug, Clone)]
pub struct FallbackRng {
    state: u64,
}

impl FallbackRng {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An index in `0..n` (`n` > 0); the modulo bias is negligible for the tiny `n` used here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_all_choices_reachable() {
        let a: Vec<usize> = (0..64)
            .scan(FallbackRng::new(7), |r, _| Some(r.below(4)))
            .collect();
        let b: Vec<usize> = (0..64)
            .scan(FallbackRng::new(7), |r, _| Some(r.below(4)))
            .collect();
        assert_eq!(a, b);
        for k in 0..4 {
            assert!(a.contains(&k));
        }
    }
}
