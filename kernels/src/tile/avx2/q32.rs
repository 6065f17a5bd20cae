//! AVX2 tiles for the 32-element formats (Q4_0, Q4_1, Q5_0, Q8_0) against 8-bit activation
//! blocks: `maddubs` integer dots, one float multiply-add per block, R rows x C tokens per
//! register tile so each weight block is unpacked once for C tokens.

use std::arch::x86_64::*;

use super::{f16_to_f32, hsum, read_u16};
use crate::quant::BlockQ8A;
use crate::tile::Tile;

const Q4_0: u8 = 0;
const Q4_1: u8 = 1;
const Q5_0: u8 = 2;
const Q8_0: u8 = 3;

const fn block_bytes(f: u8) -> usize {
    match f {
        Q4_0 => 18,
        Q4_1 => 20,
        Q5_0 => 22,
        _ => 34,
    }
}

/// 16 bytes of nibbles -> 32 bytes: low nibbles first, then high nibbles (GGML's order).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn nibbles(p: *const u8) -> __m256i {
    // SAFETY: the caller guarantees 16 readable bytes.
    let t = unsafe { _mm_loadu_si128(p.cast()) };
    let v = _mm256_set_m128i(_mm_srli_epi16(t, 4), t);
    _mm256_and_si256(v, _mm256_set1_epi8(0x0F))
}

/// Bit `i` of `bits` -> byte `i` = 0xFF if set, else 0.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn bits_to_bytes(bits: u32) -> __m256i {
    let t = _mm256_set1_epi32(bits as i32);
    let shuf = _mm256_setr_epi64x(
        0,
        0x0101_0101_0101_0101,
        0x0202_0202_0202_0202,
        0x0303_0303_0303_0303,
    );
    let b = _mm256_shuffle_epi8(t, shuf);
    let b = _mm256_or_si256(b, _mm256_set1_epi64x(0x7fbf_dfef_f7fb_fdfe));
    _mm256_cmpeq_epi8(b, _mm256_set1_epi64x(-1))
}

/// The 32 quantized values of a block as bytes: unsigned for Q4_1, signed otherwise.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn values<const F: u8>(p: *const u8) -> __m256i {
    // SAFETY: the caller guarantees a whole block at `p`.
    unsafe {
        match F {
            Q4_0 => _mm256_sub_epi8(nibbles(p.add(2)), _mm256_set1_epi8(8)),
            Q4_1 => nibbles(p.add(4)),
            Q5_0 => {
                let qh = std::ptr::read_unaligned(p.add(2).cast::<u32>());
                let hi = _mm256_andnot_si256(bits_to_bytes(qh), _mm256_set1_epi8(0xF0u8 as i8));
                _mm256_or_si256(nibbles(p.add(6)), hi)
            }
            _ => _mm256_loadu_si256(p.add(2).cast()),
        }
    }
}

/// R rows x C tokens starting at row `r0`, token `c0` of the tile.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn kernel<const F: u8, const R: usize, const C: usize>(t: &Tile, r0: usize, c0: usize) {
    let nb = t.k / 32;
    let ones = _mm256_set1_epi16(1);
    let mut acc = [[_mm256_setzero_ps(); C]; R];
    let mut msum = [[0f32; C]; R];
    // SAFETY: rows r0..r0+R and tokens c0..c0+C lie inside the tile (caller), blocks b < nb.
    unsafe {
        let wrow: [*const u8; R] = std::array::from_fn(|r| t.w.add((r0 + r) * t.w_stride));
        let arow: [*const BlockQ8A; C] =
            std::array::from_fn(|c| t.a.add((c0 + c) * t.a_stride).cast::<BlockQ8A>());
        for b in 0..nb {
            let mut wv = [_mm256_setzero_si256(); R];
            let mut wa = [_mm256_setzero_si256(); R];
            let mut dw = [0f32; R];
            let mut mw = [0f32; R];
            for r in 0..R {
                let p = wrow[r].add(b * block_bytes(F));
                wv[r] = values::<F>(p);
                if F != Q4_1 {
                    wa[r] = _mm256_sign_epi8(wv[r], wv[r]);
                }
                dw[r] = f16_to_f32(read_u16(p));
                if F == Q4_1 {
                    mw[r] = f16_to_f32(read_u16(p.add(2)));
                }
            }
            for c in 0..C {
                let ab = &*arow[c].add(b);
                let x = _mm256_loadu_si256(ab.qs.as_ptr().cast());
                for r in 0..R {
                    let p16 = if F == Q4_1 {
                        _mm256_maddubs_epi16(wv[r], x)
                    } else {
                        _mm256_maddubs_epi16(wa[r], _mm256_sign_epi8(x, wv[r]))
                    };
                    let s = _mm256_cvtepi32_ps(_mm256_madd_epi16(p16, ones));
                    acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(dw[r] * ab.d), s, acc[r][c]);
                    if F == Q4_1 {
                        msum[r][c] += mw[r] * ab.s;
                    }
                }
            }
        }
        for r in 0..R {
            for c in 0..C {
                *t.out.add((c0 + c) * t.out_stride + r0 + r) = hsum(acc[r][c]) + msum[r][c];
            }
        }
    }
}

/// Covers the tile: 4-row strips for one token, 2 rows x 4 tokens for batches.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn tile<const F: u8>(t: &Tile) {
    // SAFETY: every kernel call stays inside the tile.
    unsafe {
        let mut c0 = 0;
        while c0 + 4 <= t.ntok {
            let mut r0 = 0;
            while r0 + 2 <= t.nrows {
                kernel::<F, 2, 4>(t, r0, c0);
                r0 += 2;
            }
            if r0 < t.nrows {
                kernel::<F, 1, 4>(t, r0, c0);
            }
            c0 += 4;
        }
        while c0 < t.ntok {
            let mut r0 = 0;
            while r0 + 4 <= t.nrows {
                kernel::<F, 4, 1>(t, r0, c0);
                r0 += 4;
            }
            while r0 < t.nrows {
                kernel::<F, 1, 1>(t, r0, c0);
                r0 += 1;
            }
            c0 += 1;
        }
    }
}

macro_rules! entry {
    ($name:ident, $f:expr) => {
        /// # Safety
        /// See [`crate::tile::TileFn`]; the CPU must support AVX2, FMA and F16C.
        pub(crate) unsafe fn $name(t: &Tile) {
            // SAFETY: forwarded from the caller.
            unsafe { tile::<{ $f }>(t) }
        }
    };
}
entry!(tile_q4_0, Q4_0);
entry!(tile_q4_1, Q4_1);
entry!(tile_q5_0, Q5_0);
entry!(tile_q8_0, Q8_0);
