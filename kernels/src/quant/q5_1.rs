//! Q5_1: 32 5-bit values, an f16 scale and an f16 minimum (24 bytes); `x = d * q + m`.
//! The low 4 bits are packed like Q4_1; bit `j` of the little-endian `qh` word is the fifth
//! bit of element `j` (as Q5_0).

use half::f16;

use super::{QuantBlock, Quantize};
use crate::DType;

/// GGML `block_q5_1`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ5_1 {
    pub d: f16,
    pub m: f16,
    pub qh: [u8; 4],
    pub qs: [u8; 16],
}
const _: () = assert!(size_of::<BlockQ5_1>() == 24);

impl BlockQ5_1 {
    /// The 5-bit value of element `j` (0..32).
    #[inline]
    pub fn q(&self, j: usize) -> u8 {
        let qh = u32::from_le_bytes(self.qh);
        let nib = if j < 16 {
            self.qs[j] & 0x0F
        } else {
            self.qs[j - 16] >> 4
        };
        nib | ((((qh >> j) & 1) as u8) << 4)
    }
}

// SAFETY: repr(C), integer/f16 fields only, no padding (size asserted above).
unsafe impl QuantBlock for BlockQ5_1 {
    const DTYPE: DType = DType::Q5_1;
    const LEN: usize = 32;
    fn dequantize(&self, out: &mut [f32]) {
        let (d, m) = (self.d.to_f32(), self.m.to_f32());
        for (j, o) in out[..32].iter_mut().enumerate() {
            *o = d * f32::from(self.q(j)) + m;
        }
    }
}

impl Quantize for BlockQ5_1 {
    /// GGML `quantize_row_q5_1_ref`: `m = min`, `d = (max - min) / 31`.
    fn quantize(x: &[f32]) -> Self {
        let min = x.iter().copied().fold(f32::MAX, f32::min);
        let max = x.iter().copied().fold(-f32::MAX, f32::max);
        let d = (max - min) / 31.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        let level = |v: f32| (((v - min) * id + 0.5) as u8).min(31);
        let mut qs = [0u8; 16];
        let mut qh = 0u32;
        for (j, q) in qs.iter_mut().enumerate() {
            let (lo, hi) = (level(x[j]), level(x[j + 16]));
            *q = (lo & 0x0F) | ((hi & 0x0F) << 4);
            qh |= u32::from(lo >> 4) << j;
            qh |= u32::from(hi >> 4) << (j + 16);
        }
        BlockQ5_1 {
            d: f16::from_f32(d),
            m: f16::from_f32(min),
            qh: qh.to_le_bytes(),
            qs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::testutil::{Rng, max_abs_diff};

    #[test]
    fn round_trip_error_is_within_half_a_step() {
        let mut rng = Rng::new(15);
        for _ in 0..50 {
            let x = rng.uniform_vec(32, 2.0);
            let b = BlockQ5_1::quantize(&x);
            let mut y = [0.0; 32];
            b.dequantize(&mut y);
            let step = b.d.to_f32();
            assert!(max_abs_diff(&x, &y) <= step * 0.51 + 2e-3);
        }
        // GGML's layout: element 17 is the high nibble of byte 1 and bit 17 of qh.
        let mut b = BlockQ5_1::quantize(&[0.0; 32]);
        b.qs[1] = 0xA0;
        b.qh = (1u32 << 17).to_le_bytes();
        assert_eq!(b.q(17), 0x1A);
        assert_eq!(b.q(1), 0);
    }
}
