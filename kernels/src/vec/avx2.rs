//! AVX2 + FMA + F16C vector kernels (8 lanes).

use std::arch::x86_64::*;

use half::f16;

use super::VecOps;
use super::scalar::{self, EXP_HI, EXP_LO, LN2_HI, LN2_LO, LOG2E, P};

pub(crate) const OPS: VecOps = VecOps {
    dot_f16,
    axpy_f16,
    silu_mul,
    exp_sub,
};

fn dot_f16(a: &[f16], b: &[f32]) -> f32 {
    // SAFETY: selected only when the CPU has AVX2/FMA/F16C.
    unsafe { dot_f16_avx2(a, b) }
}
fn axpy_f16(y: &mut [f32], alpha: f32, x: &[f16]) {
    // SAFETY: as above.
    unsafe { axpy_f16_avx2(y, alpha, x) }
}
fn silu_mul(gate: &mut [f32], up: &[f32]) {
    // SAFETY: as above.
    unsafe { silu_mul_avx2(gate, up) }
}
fn exp_sub(x: &mut [f32], max: f32) -> f32 {
    // SAFETY: as above.
    unsafe { exp_sub_avx2(x, max) }
}

#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn hsum(v: __m256) -> f32 {
    let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)))
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn dot_f16_avx2(a: &[f16], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (mut s0, mut s1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    let mut i = 0;
    // SAFETY: all loads are below n.
    unsafe {
        while i + 16 <= n {
            let a0 = _mm256_cvtph_ps(_mm_loadu_si128(a.as_ptr().add(i).cast()));
            let a1 = _mm256_cvtph_ps(_mm_loadu_si128(a.as_ptr().add(i + 8).cast()));
            s0 = _mm256_fmadd_ps(a0, _mm256_loadu_ps(b.as_ptr().add(i)), s0);
            s1 = _mm256_fmadd_ps(a1, _mm256_loadu_ps(b.as_ptr().add(i + 8)), s1);
            i += 16;
        }
        if i + 8 <= n {
            let a0 = _mm256_cvtph_ps(_mm_loadu_si128(a.as_ptr().add(i).cast()));
            s0 = _mm256_fmadd_ps(a0, _mm256_loadu_ps(b.as_ptr().add(i)), s0);
            i += 8;
        }
    }
    let mut s = hsum(_mm256_add_ps(s0, s1));
    for j in i..n {
        s += a[j].to_f32() * b[j];
    }
    s
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn axpy_f16_avx2(y: &mut [f32], alpha: f32, x: &[f16]) {
    let n = y.len().min(x.len());
    let av = _mm256_set1_ps(alpha);
    let mut i = 0;
    // SAFETY: all accesses are below n.
    unsafe {
        while i + 8 <= n {
            let xv = _mm256_cvtph_ps(_mm_loadu_si128(x.as_ptr().add(i).cast()));
            let yp = y.as_mut_ptr().add(i);
            _mm256_storeu_ps(yp, _mm256_fmadd_ps(av, xv, _mm256_loadu_ps(yp)));
            i += 8;
        }
    }
    for j in i..n {
        y[j] += alpha * x[j].to_f32();
    }
}

/// 8 lanes of the scalar `exp` algorithm.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn exp8(x: __m256) -> __m256 {
    let nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x);
    let under = _mm256_cmp_ps::<_CMP_LT_OQ>(x, _mm256_set1_ps(EXP_LO));
    let x = _mm256_min_ps(x, _mm256_set1_ps(EXP_HI));
    let x = _mm256_max_ps(x, _mm256_set1_ps(EXP_LO));
    let n = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_mul_ps(
        x,
        _mm256_set1_ps(LOG2E),
    ));
    let r = _mm256_fmadd_ps(n, _mm256_set1_ps(-LN2_HI), x);
    let r = _mm256_fmadd_ps(n, _mm256_set1_ps(-LN2_LO), r);
    let mut p = _mm256_set1_ps(P[0]);
    for c in &P[1..] {
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(*c));
    }
    let r2 = _mm256_mul_ps(r, r);
    let e = _mm256_add_ps(_mm256_fmadd_ps(p, r2, r), _mm256_set1_ps(1.0));
    let ni = _mm256_cvtps_epi32(n);
    let n1 = _mm256_srai_epi32(ni, 1);
    let n2 = _mm256_sub_epi32(ni, n1);
    let bias = _mm256_set1_epi32(127);
    let s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    let s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    let v = _mm256_mul_ps(_mm256_mul_ps(e, s1), s2);
    let v = _mm256_andnot_ps(under, v);
    _mm256_blendv_ps(v, _mm256_add_ps(x, x), nan)
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn silu_mul_avx2(gate: &mut [f32], up: &[f32]) {
    let n = gate.len().min(up.len());
    let one = _mm256_set1_ps(1.0);
    let mut i = 0;
    // SAFETY: all accesses are below n.
    unsafe {
        while i + 8 <= n {
            let gp = gate.as_mut_ptr().add(i);
            let g = _mm256_loadu_ps(gp);
            let e = exp8(_mm256_sub_ps(_mm256_setzero_ps(), g));
            let s = _mm256_div_ps(g, _mm256_add_ps(one, e));
            _mm256_storeu_ps(gp, _mm256_mul_ps(s, _mm256_loadu_ps(up.as_ptr().add(i))));
            i += 8;
        }
    }
    for j in i..n {
        gate[j] = gate[j] / (1.0 + scalar::exp(-gate[j])) * up[j];
    }
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn exp_sub_avx2(x: &mut [f32], max: f32) -> f32 {
    let mv = _mm256_set1_ps(max);
    let mut acc = _mm256_setzero_ps();
    let mut i = 0;
    // SAFETY: all accesses are below x.len().
    unsafe {
        while i + 8 <= x.len() {
            let p = x.as_mut_ptr().add(i);
            let e = exp8(_mm256_sub_ps(_mm256_loadu_ps(p), mv));
            _mm256_storeu_ps(p, e);
            acc = _mm256_add_ps(acc, e);
            i += 8;
        }
    }
    let mut sum = hsum(acc);
    for v in &mut x[i..] {
        *v = scalar::exp(*v - max);
        sum += *v;
    }
    sum
}
