//! 8-bit activation blocks for the integer dot products: [`BlockQ8A`] (32 values, for the
//! 32-element weight formats; GGML's `block_q8_1` with its scales kept as f32) and
//! [`BlockQ8K`] (256 values, for the K-quants; GGML's `block_q8_K`).

use half::f16;

use super::round_even;

/// 32 activations: `x ≈ d * q`, `s = d * Σq` (for formats with a minimum, like Q4_1).
/// `d` and `s` are rounded through f16 exactly as GGML stores them in `block_q8_1`, so dot
/// products see the same numbers as llama.cpp's. `sum = Σq` exactly: kernels that multiply
/// unsigned weights `q` of a zero-offset format get `Σ(q - z)·x = Σq·x - z·sum` exact.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ8A {
    pub d: f32,
    pub s: f32,
    pub qs: [i8; 32],
    pub sum: i32,
}
const _: () = assert!(size_of::<BlockQ8A>() == 44);

impl BlockQ8A {
    pub const ZERO: BlockQ8A = BlockQ8A {
        d: 0.0,
        s: 0.0,
        qs: [0; 32],
        sum: 0,
    };
}

/// 256 activations: `x ≈ d * q`, `bsums[j] = Σ q[16j .. 16j+16]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ8K {
    pub d: f32,
    pub qs: [i8; 256],
    pub bsums: [i16; 16],
}
const _: () = assert!(size_of::<BlockQ8K>() == 292);

impl BlockQ8K {
    pub const ZERO: BlockQ8K = BlockQ8K {
        d: 0.0,
        qs: [0; 256],
        bsums: [0; 16],
    };
}

/// Scalar reference of the 32-block activation quantizer (GGML's AVX2 `quantize_row_q8_1`):
/// `d = amax / 127`, `q = round_half_even(x * 127 / amax)`.
/// `x.len()` must be `32 * out.len()`.
pub fn quantize_q8a(x: &[f32], out: &mut [BlockQ8A]) {
    debug_assert_eq!(x.len(), 32 * out.len());
    for (v, b) in x.chunks_exact(32).zip(out.iter_mut()) {
        let amax = v.iter().fold(0.0f32, |m, a| m.max(a.abs()));
        let d = amax / 127.0;
        let id = if amax != 0.0 { 127.0 / amax } else { 0.0 };
        let mut sum = 0i32;
        for (q, &a) in b.qs.iter_mut().zip(v) {
            let r = round_even(a * id);
            sum += r;
            *q = r as i8;
        }
        b.d = f16::from_f32(d).to_f32();
        b.s = f16::from_f32(d * sum as f32).to_f32();
        b.sum = sum;
    }
}

/// Scalar reference of GGML's `quantize_row_q8_K`: the value of largest magnitude maps to
/// -127, `d = 1 / iscale`. `x.len()` must be `256 * out.len()`.
pub fn quantize_q8k(x: &[f32], out: &mut [BlockQ8K]) {
    debug_assert_eq!(x.len(), 256 * out.len());
    for (v, b) in x.chunks_exact(256).zip(out.iter_mut()) {
        let (mut amax, mut max) = (0.0f32, 0.0f32);
        for &a in v {
            if a.abs() > amax {
                amax = a.abs();
                max = a;
            }
        }
        if amax == 0.0 {
            *b = BlockQ8K::ZERO;
            continue;
        }
        let iscale = -127.0 / max;
        for (q, &a) in b.qs.iter_mut().zip(v) {
            *q = round_even(iscale * a).min(127) as i8;
        }
        for (j, s) in b.bsums.iter_mut().enumerate() {
            *s = b.qs[16 * j..16 * j + 16]
                .iter()
                .map(|&q| i16::from(q))
                .sum();
        }
        b.d = 1.0 / iscale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::testutil::Rng;

    #[test]
    fn q8a_reconstructs_within_half_a_step() {
        let x = Rng::new(10).uniform_vec(64, 5.0);
        let mut b = [BlockQ8A::ZERO; 2];
        quantize_q8a(&x, &mut b);
        for (v, blk) in x.chunks(32).zip(&b) {
            let sum: i32 = blk.qs.iter().map(|&q| i32::from(q)).sum();
            assert_eq!(blk.sum, sum);
            assert!((blk.s - blk.d * sum as f32).abs() <= blk.d * sum.abs() as f32 / 1000.0 + 1e-3);
            for (a, &q) in v.iter().zip(&blk.qs) {
                assert!((a - blk.d * f32::from(q)).abs() <= blk.d * 0.51);
            }
        }
    }

    #[test]
    fn q8k_sums_and_scale() {
        let x = Rng::new(11).uniform_vec(256, 2.0);
        let mut b = [BlockQ8K::ZERO];
        quantize_q8k(&x, &mut b);
        let s: i32 = b[0].qs[..16].iter().map(|&q| i32::from(q)).sum();
        assert_eq!(i32::from(b[0].bsums[0]), s);
        for (a, &q) in x.iter().zip(&b[0].qs) {
            assert!((a - b[0].d * f32::from(q)).abs() <= b[0].d.abs() * 0.51);
        }
    }
}
