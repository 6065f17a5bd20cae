//! Scalar twins of the vector kernels. `exp` is the same range reduction and polynomial the
//! SIMD versions evaluate, step for step (with fused multiply-adds), so results agree to
//! the last bit or two.

use half::f16;

use super::VecOps;

pub(crate) const OPS: VecOps = VecOps {
    dot_f16,
    axpy_f16,
    silu_mul,
    exp_sub,
};

fn dot_f16(a: &[f16], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x.to_f32() * y).sum()
}

fn axpy_f16(y: &mut [f32], alpha: f32, x: &[f16]) {
    for (o, v) in y.iter_mut().zip(x) {
        *o += alpha * v.to_f32();
    }
}

fn silu_mul(gate: &mut [f32], up: &[f32]) {
    for (g, u) in gate.iter_mut().zip(up) {
        *g = *g / (1.0 + exp(-*g)) * u;
    }
}

fn exp_sub(x: &mut [f32], max: f32) -> f32 {
    let mut sum = 0.0;
    for v in x.iter_mut() {
        *v = exp(*v - max);
        sum += *v;
    }
    sum
}

/// Lowest input whose exp is not flushed to 0.
pub(crate) const EXP_LO: f32 = -87.33654;
/// Highest input whose exp is finite.
pub(crate) const EXP_HI: f32 = 88.72283;
pub(crate) const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 split in a part exact in f32 and a remainder (Cody-Waite).
pub(crate) const LN2_HI: f32 = 0.693_359_4;
pub(crate) const LN2_LO: f32 = -2.121_944_4e-4;
/// Minimax coefficients of e^r on [-ln2/2, ln2/2], highest degree first (Cephes `expf`).
pub(crate) const P: [f32; 6] = [
    1.987_569_1e-4,
    1.398_199_9e-3,
    8.333_452e-3,
    4.166_579_6e-2,
    1.666_666_5e-1,
    0.5,
];

/// e^x: n = round(x log2 e), r = x - n ln2, e^r by polynomial, times 2^n.
#[inline]
pub(crate) fn exp(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x < EXP_LO {
        return 0.0;
    }
    let x = x.min(EXP_HI);
    let n = (x * LOG2E).round_ties_even();
    let r = n.mul_add(-LN2_HI, x);
    let r = n.mul_add(-LN2_LO, r);
    let mut p = P[0];
    for c in &P[1..] {
        p = p.mul_add(r, *c);
    }
    let r2 = r * r;
    let e = p.mul_add(r2, r) + 1.0;
    // 2^n by building the exponent; n in [-126, 128]: split to stay in range.
    let n = n as i32;
    let (n1, n2) = (n / 2, n - n / 2);
    e * f32::from_bits(((n1 + 127) as u32) << 23) * f32::from_bits(((n2 + 127) as u32) << 23)
}
