//! AVX2 attention: scores for 8 positions of up to 8 heads at a time (each key column loaded
//! once, one FMA per head), then values 8 dimensions at a time for all heads.

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
    let (g, hd, len, stride) = (a.heads, a.head_dim, a.len, a.stride);
    let len8 = len / 8 * 8;
    let scale = _mm256_set1_ps(a.scale);
    // SAFETY (whole body): every index stays below the lengths checked in `GroupAttention::check`.
    unsafe {
        let kt = a.keys_t.as_ptr();
        let q = a.q.as_ptr();
        let mut p0 = 0;
        while p0 < len8 {
            let mut acc = [_mm256_setzero_ps(); MAX_HEADS];
            for d in 0..hd {
                let k = _mm256_cvtph_ps(_mm_loadu_si128(kt.add(d * stride + p0).cast()));
                for j in 0..g {
                    acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(*q.add(j * hd + d)), k, acc[j]);
                }
            }
            for j in 0..g {
                _mm256_storeu_ps(
                    scores.as_mut_ptr().add(j * len + p0),
                    _mm256_mul_ps(acc[j], scale),
                );
            }
            p0 += 8;
        }
        for p in len8..len {
            for j in 0..g {
                let mut s = 0f32;
                for d in 0..hd {
                    s += *q.add(j * hd + d) * (*kt.add(d * stride + p)).to_f32();
                }
                scores[j * len + p] = s * a.scale;
            }
        }
        let mut inv = [0f32; MAX_HEADS];
        for j in 0..g {
            let s = &mut scores[j * len..(j + 1) * len];
            let max = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            inv[j] = 1.0 / crate::vec::exp_sub(s, max);
        }
        let v = a.values.as_ptr();
        let sc = scores.as_ptr();
        let mut d0 = 0;
        while d0 < hd {
            let mut acc = [_mm256_setzero_ps(); MAX_HEADS];
            for p in 0..len {
                let vv = _mm256_cvtph_ps(_mm_loadu_si128(v.add(p * hd + d0).cast()));
                for j in 0..g {
                    acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(*sc.add(j * len + p)), vv, acc[j]);
                }
            }
            for j in 0..g {
                _mm256_storeu_ps(
                    out.as_mut_ptr().add(j * hd + d0),
                    _mm256_mul_ps(acc[j], _mm256_set1_ps(inv[j])),
                );
            }
            d0 += 8;
        }
    }
}
