//! NEON vector kernels (4 lanes). f16 loads convert through `half` (the NEON f16 intrinsics
//! are not stable in Rust); exp uses the scalar algorithm lane-wise in vector registers.

use std::arch::aarch64::*;

use half::f16;
use half::slice::HalfFloatSliceExt;

use super::VecOps;
use super::scalar::{self, EXP_HI, EXP_LO, LN2_HI, LN2_LO, LOG2E, P};

pub(crate) const OPS: VecOps = VecOps {
    dot_f16,
    axpy_f16,
    silu_mul,
    exp_sub,
};

const CHUNK: usize = 64;

fn dot_f16(a: &[f16], b: &[f32]) -> f32 {
    let mut buf = [0f32; CHUNK];
    let mut s = 0.0;
    for (ac, bc) in a.chunks(CHUNK).zip(b.chunks(CHUNK)) {
        let w = &mut buf[..ac.len()];
        ac.convert_to_f32_slice(w);
        // SAFETY: NEON is baseline on aarch64.
        s += unsafe { dot_f32(w, bc) };
    }
    s
}

#[target_feature(enable = "neon")]
unsafe fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let mut acc = vdupq_n_f32(0.0);
    let mut i = 0;
    // SAFETY: loads below n.
    unsafe {
        while i + 4 <= n {
            acc = vfmaq_f32(
                acc,
                vld1q_f32(a.as_ptr().add(i)),
                vld1q_f32(b.as_ptr().add(i)),
            );
            i += 4;
        }
    }
    let mut s = vaddvq_f32(acc);
    for j in i..n {
        s += a[j] * b[j];
    }
    s
}

fn axpy_f16(y: &mut [f32], alpha: f32, x: &[f16]) {
    let mut buf = [0f32; CHUNK];
    for (yc, xc) in y.chunks_mut(CHUNK).zip(x.chunks(CHUNK)) {
        let w = &mut buf[..xc.len()];
        xc.convert_to_f32_slice(w);
        for (o, v) in yc.iter_mut().zip(w.iter()) {
            *o += alpha * v;
        }
    }
}

#[inline(always)]
unsafe fn exp4(x: float32x4_t) -> float32x4_t {
    // SAFETY: register-only NEON.
    unsafe {
        let nan = vmvnq_u32(vceqq_f32(x, x));
        let under = vcltq_f32(x, vdupq_n_f32(EXP_LO));
        let x = vmaxq_f32(vminq_f32(x, vdupq_n_f32(EXP_HI)), vdupq_n_f32(EXP_LO));
        let n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(LOG2E)));
        let r = vfmaq_f32(x, n, vdupq_n_f32(-LN2_HI));
        let r = vfmaq_f32(r, n, vdupq_n_f32(-LN2_LO));
        let mut p = vdupq_n_f32(P[0]);
        for c in &P[1..] {
            p = vfmaq_f32(vdupq_n_f32(*c), p, r);
        }
        let r2 = vmulq_f32(r, r);
        let e = vaddq_f32(vfmaq_f32(r, p, r2), vdupq_n_f32(1.0));
        let ni = vcvtnq_s32_f32(n);
        let n1 = vshrq_n_s32(ni, 1);
        let n2 = vsubq_s32(ni, n1);
        let bias = vdupq_n_s32(127);
        let s1 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n1, bias), 23));
        let s2 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n2, bias), 23));
        let v = vmulq_f32(vmulq_f32(e, s1), s2);
        let v = vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(v), under));
        vbslq_f32(nan, vaddq_f32(x, x), v)
    }
}

fn silu_mul(gate: &mut [f32], up: &[f32]) {
    let n = gate.len().min(up.len());
    let mut i = 0;
    // SAFETY: NEON is baseline; accesses below n.
    unsafe {
        let one = vdupq_n_f32(1.0);
        while i + 4 <= n {
            let gp = gate.as_mut_ptr().add(i);
            let g = vld1q_f32(gp);
            let e = exp4(vnegq_f32(g));
            let s = vdivq_f32(g, vaddq_f32(one, e));
            vst1q_f32(gp, vmulq_f32(s, vld1q_f32(up.as_ptr().add(i))));
            i += 4;
        }
    }
    for j in i..n {
        gate[j] = gate[j] / (1.0 + scalar::exp(-gate[j])) * up[j];
    }
}

fn exp_sub(x: &mut [f32], max: f32) -> f32 {
    let mut i = 0;
    let mut sum;
    // SAFETY: NEON is baseline; accesses below x.len().
    unsafe {
        let mv = vdupq_n_f32(max);
        let mut acc = vdupq_n_f32(0.0);
        while i + 4 <= x.len() {
            let p = x.as_mut_ptr().add(i);
            let e = exp4(vsubq_f32(vld1q_f32(p), mv));
            vst1q_f32(p, e);
            acc = vaddq_f32(acc, e);
            i += 4;
        }
        sum = vaddvq_f32(acc);
    }
    for v in &mut x[i..] {
        *v = scalar::exp(*v - max);
        sum += *v;
    }
    sum
}
