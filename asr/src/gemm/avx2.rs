//! AVX2 + FMA + F16C kernels (x86-64), twins of `scalar.rs`.

use std::arch::x86_64::*;

use super::{MR, NR};

/// # Safety
/// The CPU must support AVX2, FMA and F16C.
#[target_feature(enable = "avx2,fma,f16c")]
pub unsafe fn f16_to_f32(src: &[u16], dst: &mut [f32]) {
    let n = src.len().min(dst.len());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n bounds both slices.
        unsafe {
            let h = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
            _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
        }
        i += 8;
    }
    super::scalar::f16_to_f32(&src[i..n], &mut dst[i..n]);
}

/// Horizontal sum of 8 lanes.
#[target_feature(enable = "avx2,fma")]
fn hsum(v: __m256) -> f32 {
    let lo = _mm256_castps256_ps128(v);
    let hi = _mm256_extractf128_ps(v, 1);
    let s = _mm_add_ps(lo, hi);
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    _mm_cvtss_f32(s)
}

/// # Safety
/// The CPU must support AVX2, FMA and F16C.
#[target_feature(enable = "avx2,fma,f16c")]
pub unsafe fn micro_6x16(
    a: &[f32],
    lda: usize,
    rows: usize,
    kb: usize,
    panel: &[f32],
    tile: &mut [f32; MR * NR],
) {
    let ap = super::tile_rows(a, lda, rows, kb, panel);
    let mut c = [[_mm256_setzero_ps(); 2]; MR];
    let pp = panel.as_ptr();
    for kk in 0..kb {
        // SAFETY: kk < kb, panel holds kb * NR values, each row pointer has kb values.
        unsafe {
            let b0 = _mm256_loadu_ps(pp.add(kk * NR));
            let b1 = _mm256_loadu_ps(pp.add(kk * NR + 8));
            for r in 0..MR {
                let av = _mm256_broadcast_ss(&*ap[r].add(kk));
                c[r][0] = _mm256_fmadd_ps(av, b0, c[r][0]);
                c[r][1] = _mm256_fmadd_ps(av, b1, c[r][1]);
            }
        }
    }
    for (r, cr) in c.iter().enumerate().take(rows) {
        // SAFETY: tile has MR * NR values.
        unsafe {
            _mm256_storeu_ps(tile.as_mut_ptr().add(r * NR), cr[0]);
            _mm256_storeu_ps(tile.as_mut_ptr().add(r * NR + 8), cr[1]);
        }
    }
}

/// # Safety
/// The CPU must support AVX2, FMA and F16C.
#[target_feature(enable = "avx2,fma,f16c")]
pub unsafe fn dot_f32(w: &[f32], x: &[f32]) -> f32 {
    let n = w.len().min(x.len());
    let (mut s0, mut s1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: i + 16 <= n.
        unsafe {
            s0 = _mm256_fmadd_ps(
                _mm256_loadu_ps(w.as_ptr().add(i)),
                _mm256_loadu_ps(x.as_ptr().add(i)),
                s0,
            );
            s1 = _mm256_fmadd_ps(
                _mm256_loadu_ps(w.as_ptr().add(i + 8)),
                _mm256_loadu_ps(x.as_ptr().add(i + 8)),
                s1,
            );
        }
        i += 16;
    }
    hsum(_mm256_add_ps(s0, s1)) + super::scalar::dot_f32(&w[i..n], &x[i..n])
}

/// # Safety
/// The CPU must support AVX2, FMA and F16C.
#[target_feature(enable = "avx2,fma,f16c")]
pub unsafe fn dot_f16(w: &[u16], x: &[f32]) -> f32 {
    let n = w.len().min(x.len());
    let (mut s0, mut s1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: i + 16 <= n.
        unsafe {
            let h0 = _mm256_cvtph_ps(_mm_loadu_si128(w.as_ptr().add(i) as *const __m128i));
            let h1 = _mm256_cvtph_ps(_mm_loadu_si128(w.as_ptr().add(i + 8) as *const __m128i));
            s0 = _mm256_fmadd_ps(h0, _mm256_loadu_ps(x.as_ptr().add(i)), s0);
            s1 = _mm256_fmadd_ps(h1, _mm256_loadu_ps(x.as_ptr().add(i + 8)), s1);
        }
        i += 16;
    }
    hsum(_mm256_add_ps(s0, s1)) + super::scalar::dot_f16(&w[i..n], &x[i..n])
}

/// # Safety
/// The CPU must support AVX2, FMA and F16C.
#[target_feature(enable = "avx2,fma,f16c")]
pub unsafe fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    let n = x.len().min(y.len());
    let av = _mm256_set1_ps(a);
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n bounds both slices.
        unsafe {
            let yv = _mm256_loadu_ps(y.as_ptr().add(i));
            let r = _mm256_fmadd_ps(av, _mm256_loadu_ps(x.as_ptr().add(i)), yv);
            _mm256_storeu_ps(y.as_mut_ptr().add(i), r);
        }
        i += 8;
    }
    super::scalar::axpy(a, &x[i..n], &mut y[i..n]);
}
