//! Q4_1: 32 4-bit values, an f16 scale and an f16 minimum (20 bytes); `x = d * q + m`.
//! Byte `j` holds element `j` in its low nibble and element `j + 16` in its high nibble.

use half::f16;

use super::{QuantBlock, Quantize};
use crate::DType;

/// GGML `block_q4_1`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ4_1 {
    pub d: f16,
    pub m: f16,
    pub qs: [u8; 16],
}
const _: () = assert!(size_of::<BlockQ4_1>() == 20);

// SAFETY: repr(C), integer/f16 fields only, no padding (size asserted above).
unsafe impl QuantBlock for BlockQ4_1 {
    const DTYPE: DType = DType::Q4_1;
    const LEN: usize = 32;
    fn dequantize(&self, out: &mut [f32]) {
        let (d, m) = (self.d.to_f32(), self.m.to_f32());
        for (j, &b) in self.qs.iter().enumerate() {
            out[j] = d * f32::from(b & 0x0F) + m;
            out[j + 16] = d * f32::from(b >> 4) + m;
        }
    }
}

impl Quantize for BlockQ4_1 {
    /// GGML `quantize_row_q4_1_ref`: `m = min`, `d = (max - min) / 15`.
    fn quantize(x: &[f32]) -> Self {
        let min = x.iter().copied().fold(f32::MAX, f32::min);
        let max = x.iter().copied().fold(-f32::MAX, f32::max);
        let d = (max - min) / 15.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        let mut qs = [0u8; 16];
        for (j, q) in qs.iter_mut().enumerate() {
            let lo = (((x[j] - min) * id + 0.5) as i8).min(15) as u8;
            let hi = (((x[j + 16] - min) * id + 0.5) as i8).min(15) as u8;
            *q = lo | (hi << 4);
        }
        BlockQ4_1 {
            d: f16::from_f32(d),
            m: f16::from_f32(min),
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
        let mut rng = Rng::new(4);
        for _ in 0..50 {
            let x = rng.uniform_vec(32, 2.0);
            let b = BlockQ4_1::quantize(&x);
            let mut y = [0.0; 32];
            b.dequantize(&mut y);
            let step = b.d.to_f32();
            assert!(max_abs_diff(&x, &y) <= step * 0.51 + 2e-3);
        }
    }
}
