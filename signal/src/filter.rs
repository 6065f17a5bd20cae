//! The low-pass filter of the resampler: a sinc under a Blackman window, and its polyphase
//! table (one row of taps per output phase).

use std::f64::consts::PI;

/// Most taps a polyphase table may hold (8 MB); rates whose table would be larger compute each
/// tap as it is needed (the same values, more slowly).
const MAX_TABLE: usize = 1 << 21;

/// A windowed-sinc low-pass for one rate pair, described relative to the lower of the two rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Filter {
    /// Pass-band edge as a fraction of the lower rate's Nyquist frequency (0.9-0.95: the rest
    /// is the transition band).
    pub cutoff: f64,
    /// Half the filter's length, in samples of the lower rate: longer is sharper and slower.
    pub half_width: f64,
}

/// The filter laid out for one rate pair: `den` phases of `2 * half` taps.
#[derive(Debug, Clone)]
pub(crate) struct Taps {
    /// Half the taps, in input samples.
    pub half: usize,
    /// Cut-off as a fraction of the input's Nyquist frequency.
    cutoff: f64,
    /// Input samples per output sample is `num / den`.
    num: u64,
    den: u64,
    /// `[den][2 * half]`, or `None` when that is over `MAX_TABLE` taps.
    table: Option<Vec<f32>>,
}

impl Taps {
    /// The taps of `filter` for `from` Hz to `to` Hz, where `num / den` is `from / to` reduced.
    pub fn new(filter: Filter, from: u32, to: u32, num: u64, den: u64) -> Self {
        // Widen the kernel when downsampling: the cut-off moves down with the output's Nyquist.
        let ratio = (f64::from(to) / f64::from(from)).min(1.0);
        let cutoff = filter.cutoff * ratio;
        let half = ((filter.half_width / ratio).ceil() as usize).max(1);
        let mut taps = Self {
            half,
            cutoff,
            num,
            den,
            table: None,
        };
        let width = 2 * half;
        if (den as usize).saturating_mul(width) <= MAX_TABLE {
            let mut table = vec![0f32; den as usize * width];
            for (p, row) in table.chunks_exact_mut(width).enumerate() {
                taps.fill_row(p as u64, row);
            }
            taps.table = Some(table);
        }
        taps
    }

    /// Calls `f` with the `2 * half` taps of output phase `phase` (`< den`); `scratch` holds
    /// them when there is no table.
    pub fn with_row<R>(
        &self,
        phase: u64,
        scratch: &mut Vec<f32>,
        f: impl FnOnce(&[f32]) -> R,
    ) -> R {
        let width = 2 * self.half;
        match &self.table {
            Some(table) => {
                let p = phase as usize;
                f(&table[p * width..(p + 1) * width])
            }
            None => {
                scratch.resize(width, 0.0);
                self.fill_row(phase, scratch);
                f(scratch)
            }
        }
    }

    /// The taps of phase `p`: its output lands at `frac = (p * num mod den) / den` past an
    /// input sample, and tap `t` weighs input sample `floor(x) - half + 1 + t`.
    fn fill_row(&self, p: u64, row: &mut [f32]) {
        let frac = ((p * self.num) % self.den) as f64 / self.den as f64;
        let half = self.half as f64;
        for (t, v) in row.iter_mut().enumerate() {
            let dist = t as f64 - (half - 1.0) - frac;
            let x = dist * self.cutoff;
            let sinc = if x.abs() < 1e-9 {
                1.0
            } else {
                (PI * x).sin() / (PI * x)
            };
            let wpos = (dist / half + 1.0) / 2.0; // 0..1 across the kernel
            let window = if (0.0..=1.0).contains(&wpos) {
                0.42 - 0.5 * (2.0 * PI * wpos).cos() + 0.08 * (4.0 * PI * wpos).cos()
            } else {
                0.0
            };
            *v = (self.cutoff * sinc * window) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_low_passes_of_unit_gain() {
        let f = Filter {
            cutoff: 0.94,
            half_width: 16.0,
        };
        // 44.1 kHz -> 16 kHz: 160 phases of 2 * 45 taps.
        let taps = Taps::new(f, 44_100, 16_000, 441, 160);
        assert_eq!(taps.half, 45);
        let mut scratch = Vec::new();
        for p in [0, 1, 80, 159] {
            let sum: f32 = taps.with_row(p, &mut scratch, |row| row.iter().sum());
            assert!((sum - 1.0).abs() < 0.01, "phase {p}: gain {sum}");
        }
    }

    #[test]
    fn table_and_computed_taps_are_the_same() {
        let f = Filter {
            cutoff: 0.92,
            half_width: 16.0,
        };
        let mut taps = Taps::new(f, 22_050, 48_000, 147, 320);
        let mut scratch = Vec::new();
        let from_table: Vec<f32> = taps.with_row(57, &mut scratch, <[f32]>::to_vec);
        taps.table = None;
        let computed: Vec<f32> = taps.with_row(57, &mut scratch, <[f32]>::to_vec);
        assert_eq!(from_table, computed);
    }
}
