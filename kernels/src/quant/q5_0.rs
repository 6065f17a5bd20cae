//! Q5_0: 32 5-bit values and one f16 scale (22 bytes); `x = d * (q - 16)`.
//! The low 4 bits are packed like Q4_0; bit `j` of the little-endian `qh` word is the fifth
//! bit of element `j`.

use half::f16;

use super::{QuantBlock, Quantize};
use crate::DType;

/// GGML `block_q5_0`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ5_0 {
    pub d: f16,
    pub qh: [u8; 4],
    pub qs: [u8; 16],
}
const _: () = assert!(size_of::<BlockQ5_0>() == 22);

// SAFETY: repr(C), integer/f16 fields only, no padding (size asserted above).
unsafe impl QuantBlock for BlockQ5_0 {
    const DTYPE: DType = DType::Q5_0;
    const LEN: usize = 32;
    fn dequantize(&self, out: &mut [f32]) {
        let d = self.d.to_f32();
        let qh = u32::from_le_bytes(self.qh);
        for (j, &b) in self.qs.iter().enumerate() {
            let h0 = ((qh >> j) & 1) << 4;
            let h1 = ((qh >> (j + 16)) & 1) << 4;
            out[j] = d * ((u32::from(b & 0x0F) | h0) as i32 - 16) as f32;
            out[j + 16] = d * ((u32::from(b >> 4) | h1) as i32 - 16) as f32;
        }
    }
}

impl Quantize for BlockQ5_0 {
    /// GGML `quantize_row_q5_0_ref`: the value of largest magnitude maps to -16.
    fn quantize(x: &[f32]) -> Self {
        let (mut amax, mut max) = (0.0f32, 0.0f32);
        for &v in x {
            if amax < v.abs() {
                amax = v.abs();
                max = v;
            }
        }
        let d = max / -16.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        let mut qs = [0u8; 16];
        let mut qh = 0u32;
        for (j, q) in qs.iter_mut().enumerate() {
            let lo = ((x[j] * id + 16.5) as i8).min(31) as u8;
            let hi = ((x[j + 16] * id + 16.5) as i8).min(31) as u8;
            *q = (lo & 0x0F) | ((hi & 0x0F) << 4);
            qh |= u32::from(lo >> 4) << j;
            qh |= u32::from(hi >> 4) << (j + 16);
        }
        BlockQ5_0 {
            d: f16::from_f32(d),
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
    fn round_trip_error_is_within_one_step() {
        let mut rng = Rng::new(5);
        for _ in 0..50 {
            let x = rng.uniform_vec(32, 2.0);
            let b = BlockQ5_0::quantize(&x);
            let mut y = [0.0; 32];
            b.dequantize(&mut y);
            let step = b.d.to_f32().abs();
            // Half a step of rounding, up to one step where the positive side clips at +7 (+15).
            assert!(max_abs_diff(&x, &y) <= step * 1.001 + 1e-6);
        }
    }
}
