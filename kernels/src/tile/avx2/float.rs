//! AVX2 tiles for float weights (F32, F16, BF16) against f32 activations: 4 rows x 2 tokens
//! of 8-lane FMA accumulators, weights widened to f32 in registers.

use std::arch::x86_64::*;

use super::hsum;
use crate::tile::Tile;

const F32: u8 = 0;
const F16: u8 = 1;
const BF16: u8 = 2;

/// 8 weights at element offset `i` of the row at `p`, as f32.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn load8<const F: u8>(p: *const u8, i: usize) -> __m256 {
    // SAFETY: the caller guarantees 8 elements at offset i.
    unsafe {
        match F {
            F32 => _mm256_loadu_ps(p.cast::<f32>().add(i)),
            F16 => _mm256_cvtph_ps(_mm_loadu_si128(p.add(2 * i).cast())),
            _ => _mm256_castsi256_ps(_mm256_slli_epi32(
                _mm256_cvtepu16_epi32(_mm_loadu_si128(p.add(2 * i).cast())),
                16,
            )),
        }
    }
}

/// One weight at element offset `i` as f32.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn load1<const F: u8>(p: *const u8, i: usize) -> f32 {
    // SAFETY: the caller guarantees element i is readable.
    unsafe {
        match F {
            F32 => std::ptr::read_unaligned(p.cast::<f32>().add(i)),
            F16 => {
                half::f16::from_bits(std::ptr::read_unaligned(p.add(2 * i).cast::<u16>())).to_f32()
            }
            _ => {
                half::bf16::from_bits(std::ptr::read_unaligned(p.add(2 * i).cast::<u16>())).to_f32()
            }
        }
    }
}

#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn kernel<const F: u8, const R: usize, const C: usize>(t: &Tile, r0: usize, c0: usize) {
    let k8 = t.k / 8 * 8;
    let mut acc = [[_mm256_setzero_ps(); C]; R];
    // SAFETY: rows r0..r0+R and tokens c0..c0+C are inside the tile.
    unsafe {
        let wrow: [*const u8; R] = std::array::from_fn(|r| t.w.add((r0 + r) * t.w_stride));
        let arow: [*const f32; C] =
            std::array::from_fn(|c| t.a.add((c0 + c) * t.a_stride).cast::<f32>());
        let mut i = 0;
        while i < k8 {
            let w: [__m256; R] = std::array::from_fn(|r| load8::<F>(wrow[r], i));
            for c in 0..C {
                let x = _mm256_loadu_ps(arow[c].add(i));
                for r in 0..R {
                    acc[r][c] = _mm256_fmadd_ps(w[r], x, acc[r][c]);
                }
            }
            i += 8;
        }
        for r in 0..R {
            for c in 0..C {
                let mut s = hsum(acc[r][c]);
                for j in k8..t.k {
                    s += load1::<F>(wrow[r], j) * *arow[c].add(j);
                }
                *t.out.add((c0 + c) * t.out_stride + r0 + r) = s;
            }
        }
    }
}

#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn tile<const F: u8>(t: &Tile) {
    // SAFETY: every kernel call stays inside the tile.
    unsafe {
        let mut c0 = 0;
        while c0 + 2 <= t.ntok {
            let mut r0 = 0;
            while r0 + 4 <= t.nrows {
                kernel::<F, 4, 2>(t, r0, c0);
                r0 += 4;
            }
            while r0 < t.nrows {
                kernel::<F, 1, 2>(t, r0, c0);
                r0 += 1;
            }
            c0 += 2;
        }
        if c0 < t.ntok {
            let mut r0 = 0;
            while r0 + 4 <= t.nrows {
                kernel::<F, 4, 1>(t, r0, c0);
                r0 += 4;
            }
            while r0 < t.nrows {
                kernel::<F, 1, 1>(t, r0, c0);
                r0 += 1;
            }
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
entry!(tile_f32, F32);
entry!(tile_f16, F16);
entry!(tile_bf16, BF16);
