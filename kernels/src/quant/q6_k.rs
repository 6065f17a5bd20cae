//! Q6_K: super-blocks of 256 6-bit values in 16 sub-blocks of 16 with signed 8-bit scales
//! under one f16 super-scale (210 bytes); `x = d * sc[s] * (q - 32)`.
//! Each half (128 values) takes 64 bytes of `ql` (low 4 bits) and 32 of `qh` (high 2 bits).

use half::f16;

use super::{QuantBlock, Quantize, round_even};
use crate::DType;

/// GGML `block_q6_K`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ6K {
    pub ql: [u8; 128],
    pub qh: [u8; 64],
    pub scales: [i8; 16],
    pub d: f16,
}
const _: () = assert!(size_of::<BlockQ6K>() == 210);

impl BlockQ6K {
    /// The unsigned 6-bit value (0..=63) of element `i`.
    #[inline]
    pub fn q(&self, i: usize) -> u8 {
        let (half, r) = (i / 128, i % 128);
        let (quarter, l) = (r / 32, r % 32);
        let ql = self.ql[64 * half + l + 32 * (quarter & 1)];
        let lo = if quarter < 2 { ql & 0x0F } else { ql >> 4 };
        let hi = (self.qh[32 * half + l] >> (2 * quarter)) & 3;
        lo | (hi << 4)
    }

    fn set_q(&mut self, i: usize, q: u8) {
        let (half, r) = (i / 128, i % 128);
        let (quarter, l) = (r / 32, r % 32);
        let ql = &mut self.ql[64 * half + l + 32 * (quarter & 1)];
        *ql |= if quarter < 2 {
            q & 0x0F
        } else {
            (q & 0x0F) << 4
        };
        self.qh[32 * half + l] |= (q >> 4) << (2 * quarter);
    }
}

// SAFETY: repr(C), integer/f16 fields only, no padding (size asserted above).
unsafe impl QuantBlock for BlockQ6K {
    const DTYPE: DType = DType::Q6_K;
    const LEN: usize = 256;
    fn dequantize(&self, out: &mut [f32]) {
        let d = self.d.to_f32();
        for (i, o) in out.iter_mut().enumerate().take(256) {
            let sc = f32::from(self.scales[i / 16]);
            *o = d * sc * (i32::from(self.q(i)) - 32) as f32;
        }
    }
}

impl Quantize for BlockQ6K {
    /// A simple quantizer (not GGML's iterative search): per sub-block the value of largest
    /// magnitude maps to -32; scales are coded in 8 bits under `d = max|scale| / 127`.
    fn quantize(x: &[f32]) -> Self {
        let mut sub = [0f32; 16];
        for (s, sv) in sub.iter_mut().enumerate() {
            let v = &x[16 * s..16 * s + 16];
            let m = v
                .iter()
                .copied()
                .fold(0.0f32, |a, b| if b.abs() > a.abs() { b } else { a });
            *sv = m / -32.0;
        }
        let amax = sub.iter().fold(0.0f32, |a, b| a.max(b.abs()));
        let d16 = f16::from_f32(amax / 127.0);
        let d = d16.to_f32();
        let mut b = BlockQ6K {
            ql: [0; 128],
            qh: [0; 64],
            scales: [0; 16],
            d: d16,
        };
        for s in 0..16 {
            let sc = if d > 0.0 {
                round_even(sub[s] / d).clamp(-127, 127)
            } else {
                0
            };
            b.scales[s] = sc as i8;
            let step = d * sc as f32;
            for l in 0..16 {
                let i = 16 * s + l;
                let q = if step != 0.0 {
                    round_even(x[i] / step).clamp(-32, 31)
                } else {
                    0
                };
                b.set_q(i, (q + 32) as u8);
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::testutil::Rng;

    #[test]
    fn element_layout_matches_ggml_loop() {
        // GGML's dequantize_row_q6_K loop, written out, on random bytes.
        let mut rng = Rng(8);
        let mut b = BlockQ6K {
            ql: [0; 128],
            qh: [0; 64],
            scales: [0; 16],
            d: f16::ONE,
        };
        b.ql.iter_mut().for_each(|v| *v = rng.next_u64() as u8);
        b.qh.iter_mut().for_each(|v| *v = rng.next_u64() as u8);
        for n in 0..2 {
            let (ql, qh) = (&b.ql[64 * n..], &b.qh[32 * n..]);
            for l in 0..32 {
                let y = 128 * n + l;
                assert_eq!(b.q(y), (ql[l] & 0xF) | ((qh[l] & 3) << 4));
                assert_eq!(b.q(y + 32), (ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4));
                assert_eq!(b.q(y + 64), (ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4));
                assert_eq!(b.q(y + 96), (ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4));
            }
        }
    }

    #[test]
    fn round_trip_error_is_small() {
        let x = Rng(9).vec(256, 1.0);
        let b = BlockQ6K::quantize(&x);
        let mut y = [0.0; 256];
        b.dequantize(&mut y);
        let rms = (x.iter().zip(&y).map(|(a, c)| (a - c).powi(2)).sum::<f32>() / 256.0).sqrt();
        assert!(rms < 0.03, "rms {rms}");
    }
}
