//! SplitMix64: small, fast, deterministic; the same seed gives the same stream everywhere.
//! For test data, fuzzing, synthetic models and plans, and for seeding other generators (the
//! LLM sampler's xoshiro256**); not for secrets.

/// A SplitMix64 generator with the draws its users need.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose stream depends only on `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0, drawing nothing, when `n` is 0; the modulo bias is negligible for
    /// the small `n` drawn here).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// A uniformly chosen element (`None` for an empty slice).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }

    /// Uniform in `[0, 1)`, 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[-1, 1)`, 24 bits.
    pub fn uniform(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// `n` values uniform in `[-scale, scale)`.
    pub fn uniform_vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.uniform() * scale).collect()
    }

    /// Small sizes far more often than large ones: `0..max`, log-uniform-ish.
    pub fn size(&mut self, max: usize) -> usize {
        let bits = self.below(usize::BITS as usize - max.leading_zeros() as usize + 1);
        self.below((1usize << bits).min(max.max(1)))
    }

    /// Fills `out` with random bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        for b in out {
            *b = self.next_u64() as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_splitmix64() {
        // The reference sequence for seed 1234567 (Vigna's splitmix64.c).
        let mut r = Rng::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn draws_stay_in_range_and_reach_it() {
        let mut r = Rng::new(7);
        let mut seen = [false; 4];
        for _ in 0..200 {
            seen[r.below(4)] = true;
            let u = r.uniform();
            assert!((-1.0..1.0).contains(&u), "{u}");
            let f = r.unit();
            assert!((0.0..1.0).contains(&f), "{f}");
            assert!(r.size(100) < 100);
        }
        assert_eq!(seen, [true; 4]);
        assert_eq!(r.below(0), 0);
        assert!(r.pick::<u8>(&[]).is_none());
        let v = r.uniform_vec(50, 3.0);
        assert!(v.iter().all(|x| x.abs() <= 3.0) && v.iter().any(|x| x.abs() > 1.0));
    }
}
