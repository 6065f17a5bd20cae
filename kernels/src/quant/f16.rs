//! F16 and BF16 element formats: row conversions to and from `f32` (through `half`, which
//! uses F16C / NEON conversions when the CPU has them).

use half::slice::HalfFloatSliceExt;
use half::{bf16, f16};

/// `out[i] = x[i]` rounded to f16 (round to nearest even). Lengths must match.
pub fn f32_to_f16_row(x: &[f32], out: &mut [f16]) {
    out.convert_from_f32_slice(x);
}

/// `out[i] = x[i]` widened to f32. Lengths must match.
pub fn f16_to_f32_row(x: &[f16], out: &mut [f32]) {
    x.convert_to_f32_slice(out);
}

/// `out[i] = x[i]` rounded to bf16 (round to nearest even). Lengths must match.
pub fn f32_to_bf16_row(x: &[f32], out: &mut [bf16]) {
    out.convert_from_f32_slice(x);
}

/// `out[i] = x[i]` widened to f32. Lengths must match.
pub fn bf16_to_f32_row(x: &[bf16], out: &mut [f32]) {
    x.convert_to_f32_slice(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::testutil::Rng;

    #[test]
    fn f16_and_bf16_round_trip_within_their_precision() {
        let x = Rng::new(1).uniform_vec(1000, 8.0);
        let mut h = vec![f16::ZERO; x.len()];
        let mut b = vec![bf16::ZERO; x.len()];
        let mut y = vec![0.0; x.len()];
        f32_to_f16_row(&x, &mut h);
        f16_to_f32_row(&h, &mut y);
        for (a, c) in x.iter().zip(&y) {
            assert!((a - c).abs() <= a.abs() * 1.0 / 2048.0 + 1e-7, "{a} {c}");
        }
        f32_to_bf16_row(&x, &mut b);
        bf16_to_f32_row(&b, &mut y);
        for (a, c) in x.iter().zip(&y) {
            assert!((a - c).abs() <= a.abs() / 256.0 + 1e-30, "{a} {c}");
        }
    }
}
