//! Q8_0: 32 signed bytes and one f16 scale (34 bytes); `x = d * q`.

use half::f16;

use super::{QuantBlock, Quantize};
use crate::DType;

/// GGML `block_q8_0`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ8_0 {
    pub d: f16,
    pub qs: [i8; 32],
}
const _: () = assert!(size_of::<BlockQ8_0>() == 34);

// SAFETY: repr(C), integer/f16 fields only, no padding (size asserted above).
unsafe impl QuantBlock for BlockQ8_0 {
    const DTYPE: DType = DType::Q8_0;
    const LEN: usize = 32;
    fn dequantize(&self, out: &mut [f32]) {
        let d = self.d.to_f32();
        for (o, &q) in out.iter_mut().zip(&self.qs) {
            *o = d * f32::from(q);
        }
    }
}

impl Quantize for BlockQ8_0 {
    /// GGML `quantize_row_q8_0_ref`: `d = amax / 127`, `q = round(x / d)`.
    fn quantize(x: &[f32]) -> Self {
        let amax = x.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let d = amax / 127.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        let mut qs = [0i8; 32];
        for (q, &v) in qs.iter_mut().zip(x) {
            *q = (v * id).round() as i8;
        }
        BlockQ8_0 {
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
    fn round_trip_error_is_within_half_a_step() {
        let x = Rng::new(2).uniform_vec(32, 3.0);
        let b = BlockQ8_0::quantize(&x);
        let mut y = [0.0; 32];
        b.dequantize(&mut y);
        let step = b.d.to_f32();
        assert!(max_abs_diff(&x, &y) <= 0.5 * step + 1e-3 * step + 1e-6);
    }

    #[test]
    fn zeros_quantize_to_zero() {
        let b = BlockQ8_0::quantize(&[0.0; 32]);
        assert_eq!(b.d.to_f32(), 0.0);
        assert_eq!(b.qs, [0; 32]);
    }
}
