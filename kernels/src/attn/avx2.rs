//! AVX2 attention: scores for 8 or 16 positions of up to 8 heads at a time (each key column
//! chunk converted once, one FMA per head), then values 8 or 16 dimensions at a time.

use std::arch::x86_64::*;

use super::{GroupAttention, scalar};

const MAX_HEADS: usize = 8;

pub(super) fn attend(a: &GroupAttention<'_>, scores: &mut [f32], out: &mut [f32]) {
    if a.heads > MAX_HEADS || !a.head_dim.is_multiple_of(8) {
        return scalar::attend(a, scores, out);
    }
    // SAFETY: selected only when the CPU has AVX2/FMA/F16C; shapes were checked by the caller.
    unsafe { attend_avx2(a, scores, out) }
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn attend_avx2(a: &GroupAttention<'_>, scores: &mut [f32], out: &mut [f32]) {
    let (g, len) = (a.heads, a.len);
    // SAFETY: shapes were checked by the caller (`GroupAttention::check`).
    unsafe {
        if g <= 4 {
            scores_block::<2>(a, scores);
        } else {
            scores_block::<1>(a, scores);
        }
        let mut inv = [0f32; MAX_HEADS];
        for j in 0..g {
            let s = &mut scores[j * len..(j + 1) * len];
            let max = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            inv[j] = 1.0 / crate::vec::exp_sub(s, max);
        }
        if g <= 4 && a.head_dim.is_multiple_of(16) {
            values_block::<2>(a, scores, &inv, out);
        } else {
            values_block::<1>(a, scores, &inv, out);
        }
    }
}

/// Scores of all heads for `8 * W` positions at a time: each key column chunk is converted
/// once and multiplied into every head's accumulators.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn scores_block<const W: usize>(a: &GroupAttention<'_>, scores: &mut [f32]) {
    let (g, hd, len, stride) = (a.heads, a.head_dim, a.len, a.stride);
    let step = 8 * W;
    let full = len / step * step;
    let scale = _mm256_set1_ps(a.scale);
    // SAFETY: every index stays below the checked lengths.
    unsafe {
        let kt = a.keys_t.as_ptr();
        let q = a.q.as_ptr();
        let mut p0 = 0;
        while p0 < full {
            let mut acc = [[_mm256_setzero_ps(); W]; MAX_HEADS];
            for d in 0..hd {
                let k: [__m256; W] = std::array::from_fn(|w| {
                    _mm256_cvtph_ps(_mm_loadu_si128(kt.add(d * stride + p0 + 8 * w).cast()))
                });
                for j in 0..g {
                    let qv = _mm256_set1_ps(*q.add(j * hd + d));
                    for w in 0..W {
                        acc[j][w] = _mm256_fmadd_ps(qv, k[w], acc[j][w]);
                    }
                }
            }
            for j in 0..g {
                for w in 0..W {
                    _mm256_storeu_ps(
                        scores.as_mut_ptr().add(j * len + p0 + 8 * w),
                        _mm256_mul_ps(acc[j][w], scale),
                    );
                }
            }
            p0 += step;
        }
        for p in full..len {
            for j in 0..g {
                let mut s = 0f32;
                for d in 0..hd {
                    s += *q.add(j * hd + d) * (*kt.add(d * stride + p)).to_f32();
                }
                scores[j * len + p] = s * a.scale;
            }
        }
    }
}

/// `out[j] = inv[j] * Σ_p scores[j][p] · V[p]`, `8 * W` dimensions at a time.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn values_block<const W: usize>(
    a: &GroupAttention<'_>,
    scores: &[f32],
    inv: &[f32; MAX_HEADS],
    out: &mut [f32],
) {
    let (g, hd, len) = (a.heads, a.head_dim, a.len);
    // SAFETY: every index stays below the checked lengths; hd is a multiple of 8 * W.
    unsafe {
        let v = a.values.as_ptr();
        let sc = scores.as_ptr();
        let mut d0 = 0;
        while d0 < hd {
            let mut acc = [[_mm256_setzero_ps(); W]; MAX_HEADS];
            for p in 0..len {
                let vv: [__m256; W] = std::array::from_fn(|w| {
                    _mm256_cvtph_ps(_mm_loadu_si128(v.add(p * hd + d0 + 8 * w).cast()))
                });
                for j in 0..g {
                    let pj = _mm256_set1_ps(*sc.add(j * len + p));
                    for w in 0..W {
                        acc[j][w] = _mm256_fmadd_ps(pj, vv[w], acc[j][w]);
                    }
                }
            }
            for j in 0..g {
                for w in 0..W {
                    _mm256_storeu_ps(
                        out.as_mut_ptr().add(j * hd + d0 + 8 * w),
                        _mm256_mul_ps(acc[j][w], _mm256_set1_ps(inv[j])),
                    );
                }
            }
            d0 += 8 * W;
        }
    }
}
