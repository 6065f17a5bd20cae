//! AVX2 tiles for the K-quants (Q4_K, Q6_K) against [`BlockQ8K`] activations: integer dots
//! per sub-block scaled by the integer sub-block scales (`madd`), one float multiply-add per
//! 256-element super-block.

use std::arch::x86_64::*;

use super::{f16_to_f32, hsum, read_u16};
use crate::quant::{BlockQ4K, BlockQ8K};
use crate::tile::Tile;

/// dot(Q4_K row, Q8_K activations) over `nb` super-blocks.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn dot_q4_k(w: *const u8, a: *const BlockQ8K, nb: usize) -> f32 {
    let mask = _mm256_set1_epi8(0x0F);
    let mut acc = _mm256_setzero_ps();
    let mut acc_m = 0f32;
    for i in 0..nb {
        // SAFETY: the caller guarantees nb blocks of 144 bytes at `w` and nb blocks at `a`.
        unsafe {
            let p = w.add(i * 144);
            let y = &*a.add(i);
            let d = y.d * f16_to_f32(read_u16(p));
            let dmin = y.d * f16_to_f32(read_u16(p.add(2)));
            let (scales, mins) = BlockQ4K::unpack_scales(&*p.add(4).cast::<[u8; 12]>());
            let mut summ = 0i32;
            for j in 0..8 {
                summ += i32::from(mins[j])
                    * (i32::from(y.bsums[2 * j]) + i32::from(y.bsums[2 * j + 1]));
            }
            acc_m += dmin * summ as f32;
            let qs = p.add(16);
            let mut sumi = _mm256_setzero_si256();
            for j in 0..4 {
                let q4 = _mm256_loadu_si256(qs.add(32 * j).cast());
                let lo = _mm256_and_si256(q4, mask);
                let hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), mask);
                let y0 = _mm256_loadu_si256(y.qs.as_ptr().add(64 * j).cast());
                let y1 = _mm256_loadu_si256(y.qs.as_ptr().add(64 * j + 32).cast());
                let p0 = _mm256_madd_epi16(
                    _mm256_maddubs_epi16(lo, y0),
                    _mm256_set1_epi16(i16::from(scales[2 * j])),
                );
                let p1 = _mm256_madd_epi16(
                    _mm256_maddubs_epi16(hi, y1),
                    _mm256_set1_epi16(i16::from(scales[2 * j + 1])),
                );
                sumi = _mm256_add_epi32(sumi, _mm256_add_epi32(p0, p1));
            }
            acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
        }
    }
    hsum(acc) - acc_m
}

/// dot(Q6_K row, Q8_K activations) over `nb` super-blocks.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn dot_q6_k(w: *const u8, a: *const BlockQ8K, nb: usize) -> f32 {
    let m4 = _mm256_set1_epi8(0x0F);
    let m2 = _mm256_set1_epi8(3);
    let m32 = _mm256_set1_epi8(32);
    let mut acc = _mm256_setzero_ps();
    for i in 0..nb {
        // SAFETY: the caller guarantees nb blocks of 210 bytes at `w` and nb blocks at `a`.
        unsafe {
            let p = w.add(i * 210);
            let y = &*a.add(i);
            let d = y.d * f16_to_f32(read_u16(p.add(208)));
            let scales = std::slice::from_raw_parts(p.add(192).cast::<i8>(), 16);
            let mut sumi = _mm256_setzero_si256();
            for half in 0..2 {
                let ql = p.add(64 * half);
                let qh = _mm256_loadu_si256(p.add(128 + 32 * half).cast());
                let l0 = _mm256_loadu_si256(ql.cast());
                let l1 = _mm256_loadu_si256(ql.add(32).cast());
                let q = [
                    _mm256_or_si256(
                        _mm256_and_si256(l0, m4),
                        _mm256_slli_epi16(_mm256_and_si256(qh, m2), 4),
                    ),
                    _mm256_or_si256(
                        _mm256_and_si256(l1, m4),
                        _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), m2), 4),
                    ),
                    _mm256_or_si256(
                        _mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                        _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), m2), 4),
                    ),
                    _mm256_or_si256(
                        _mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                        _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), m2), 4),
                    ),
                ];
                for (quarter, qv) in q.iter().enumerate() {
                    let e = 128 * half + 32 * quarter;
                    let yv = _mm256_loadu_si256(y.qs.as_ptr().add(e).cast());
                    let prod = _mm256_sub_epi16(
                        _mm256_maddubs_epi16(*qv, yv),
                        _mm256_maddubs_epi16(m32, yv),
                    );
                    let s = e / 16;
                    let sc = _mm256_set_m128i(
                        _mm_set1_epi16(i16::from(scales[s + 1])),
                        _mm_set1_epi16(i16::from(scales[s])),
                    );
                    sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(prod, sc));
                }
            }
            acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
        }
    }
    hsum(acc)
}

macro_rules! entry {
    ($name:ident, $dot:ident) => {
        /// # Safety
        /// See [`crate::tile::TileFn`]; the CPU must support AVX2, FMA and F16C.
        pub(crate) unsafe fn $name(t: &Tile) {
            // SAFETY: forwarded from the caller (tile extents), CPU checked by the caller.
            unsafe { tile_with(t, $dot) }
        }
    };
}
entry!(tile_q4_k, dot_q4_k);
entry!(tile_q6_k, dot_q6_k);

#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn tile_with(t: &Tile, dot: unsafe fn(*const u8, *const BlockQ8K, usize) -> f32) {
    let nb = t.k / 256;
    for c in 0..t.ntok {
        for r in 0..t.nrows {
            // SAFETY: row r and token c lie inside the tile.
            unsafe {
                let v = dot(t.w.add(r * t.w_stride), t.a.add(c * t.a_stride).cast(), nb);
                *t.out.add(c * t.out_stride + r) = v;
            }
        }
    }
}
