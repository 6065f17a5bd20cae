//! Q4_K's parts of the AMX tile: 8 sub-blocks of 32 elements, so one C tile per sub-block
//! from an A tile of 16 tokens × 32 bytes and a B tile of 8 rows × 64 bytes. Chunk `8p + v`
//! of a Q4_Kx8 group block is already B row `v` of sub-blocks `2p` (low nibbles) and `2p + 1`
//! (high nibbles) for its 8 rows.

use std::arch::x86_64::*;

use super::super::x8k::q4k_scales;
use super::{Format, Sums, Unpacked, f16_rows16, rows16, scaled_sums};
use crate::quant::BlockQ8K;

pub(super) struct Q4K;

/// The scales of two group blocks as 16 lanes (rows): the 8 sub-blocks' scales, the mins as
/// 16-bit pairs of sub-blocks (0, 1) .. (6, 7), `d` and `dmin`.
pub(super) struct Scales {
    sc: [__m512i; 8],
    mins: [__m512i; 4],
    d: __m512,
    dmin: __m512,
}

/// Bytes of a B tile (8 rows of 64).
const B_TILE: usize = super::b_tile_bytes(<Q4K as Format>::SUB);

impl Format for Q4K {
    const GROUP_BYTES: usize = 1152;
    const SUB: usize = 32;
    type Scales = Scales;

    #[inline(always)]
    unsafe fn unpack(b0: *const u8, b1: *const u8, out: *mut Unpacked) {
        // SAFETY: 32 chunks of 32 bytes after the 128 header bytes of each block; the
        // stores fill the 8 B tiles; AVX-512 where this is inlined.
        unsafe {
            let m4 = _mm512_set1_epi8(0x0F);
            let tiles = out.cast::<u8>();
            for p in 0..4 {
                for v in 0..8 {
                    let u = 128 + 32 * (8 * p + v);
                    let q = rows16(
                        _mm256_loadu_si256(b0.add(u).cast()),
                        _mm256_loadu_si256(b1.add(u).cast()),
                    );
                    let at = |s: usize| tiles.add(B_TILE * s + 64 * v).cast();
                    _mm512_store_si512(at(2 * p), _mm512_and_si512(q, m4));
                    _mm512_store_si512(
                        at(2 * p + 1),
                        _mm512_and_si512(_mm512_srli_epi16::<4>(q), m4),
                    );
                }
            }
        }
    }

    #[inline(always)]
    unsafe fn scales(b0: *const u8, b1: *const u8) -> Scales {
        // SAFETY: the headers and scale planes lie inside the blocks; AVX-512 where this is
        // inlined.
        unsafe {
            let (lo0, hi0, mins0) = q4k_scales(b0);
            let (lo1, hi1, mins1) = q4k_scales(b1);
            let mut bytes = [[0u8; 64]; 2];
            _mm256_storeu_si256(bytes[0].as_mut_ptr().cast(), lo0);
            _mm256_storeu_si256(bytes[0].as_mut_ptr().add(32).cast(), hi0);
            _mm256_storeu_si256(bytes[1].as_mut_ptr().cast(), lo1);
            _mm256_storeu_si256(bytes[1].as_mut_ptr().add(32).cast(), hi1);
            // Byte 8s + r of each: sub-block s of row r.
            let sc = std::array::from_fn(|s| {
                _mm512_cvtepu8_epi32(_mm_unpacklo_epi64(
                    _mm_loadl_epi64(bytes[0].as_ptr().add(8 * s).cast()),
                    _mm_loadl_epi64(bytes[1].as_ptr().add(8 * s).cast()),
                ))
            });
            Scales {
                sc,
                mins: std::array::from_fn(|i| rows16(mins0[i], mins1[i])),
                d: f16_rows16(b0, b1, 0),
                dmin: f16_rows16(b0, b1, 16),
            }
        }
    }

    /// As `x8k::q4k_acc` does for 8 rows: `d·y.d·Σ_s sc[s]·sums[s]` minus
    /// `dmin·y.d·Σ_s min[s]·Σ(activations of s)`.
    #[inline(always)]
    unsafe fn accumulate(sc: &Scales, sums: *const Sums, m: usize, y: &BlockQ8K, acc: &mut __m512) {
        // SAFETY: the 8 C tiles are written; the bsums loads lie inside `y`; AVX-512 where
        // this is inlined.
        unsafe {
            let sumi = scaled_sums(sums, m, &sc.sc);
            // Sums of the 8 sub-blocks' activations, as 4 pairs of i16.
            let pairs = _mm_hadd_epi16(
                _mm_loadu_si128(y.bsums.as_ptr().cast()),
                _mm_loadu_si128(y.bsums.as_ptr().add(8).cast()),
            );
            let mut bs = [0i32; 4];
            _mm_storeu_si128(bs.as_mut_ptr().cast(), pairs);
            let mut summ = _mm512_setzero_si512();
            for (mins, b) in sc.mins.iter().zip(bs) {
                summ = _mm512_add_epi32(summ, _mm512_madd_epi16(*mins, _mm512_set1_epi32(b)));
            }
            let yd = _mm512_set1_ps(y.d);
            *acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi), _mm512_mul_ps(sc.d, yd), *acc);
            *acc = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(summ), _mm512_mul_ps(sc.dmin, yd), *acc);
        }
    }
}
