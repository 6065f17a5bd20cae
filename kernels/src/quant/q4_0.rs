//! Q4_0: 32 4-bit values and one f16 scale (18 bytes); `x = d * (q - 8)`.
//! Byte `j` holds element `j` in its low nibble and element `j + 16` in its high nibble.

use half::f16;

use super::{QuantBlock, Quantize};
use crate::DType;

/// GGML `block_q4_0`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ4_0 {
    pub d: f16,
    pub qs: [u8; 16],
}
const _: () = assert!(size_of::<BlockQ4_0>() == 18);

// SAFETY: repr(C), integer/f16 fields only, no padding (size asserted above).
unsafe impl QuantBlock for BlockQ4_0 {
    const DTYPE: DType = DType::Q4_0;
    const LEN: usize = 32;
    fn dequantize(&self, out: &mut [f32]) {
        let d = self.d.to_f32();
        for (j, &b) in self.qs.iter().enumerate() {
            out[j] = d * (i32::from(b & 0x0F) - 8) as f32;
            out[j + 16] = d * (i32::from(b >> 4) - 8) as f32;
        }
    }
}

impl Quantize for BlockQ4_0 {
    /// GGML `quantize_row_q4_0_ref`: the value of largest magnitude maps to -8.
    fn quantize(x: &[f32]) -> Self {
        let (mut amax, mut max) = (0.0f32, 0.0f32);
        for &v in x {
            if amax < v.abs() {
                amax = v.abs();
                max = v;
            }
        }
        let d = max / -8.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        let mut qs = [0u8; 16];
        for (j, q) in qs.iter_mut().enumerate() {
            let lo = ((x[j] * id + 8.5) as i8).min(15) as u8;
            let hi = ((x[j + 16] * id + 8.5) as i8).min(15) as u8;
            *q = lo | (hi << 4);
        }
        BlockQ4_0 {
            d: f16::from_f32(d),
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
        let mut rng = Rng::new(3);
        for _ in 0..50 {
            let x = rng.uniform_vec(32, 2.0);
            let b = BlockQ4_0::quantize(&x);
            let mut y = [0.0; 32];
            b.dequantize(&mut y);
            let step = b.d.to_f32().abs();
            // Half a step of rounding, up to one step where the positive side clips at +7 (+15).
            assert!(max_abs_diff(&x, &y) <= step * 1.001 + 1e-6);
        }
    }
}
