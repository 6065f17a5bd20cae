//! Q6_K's parts of the AMX tile: 16 sub-blocks of 16 elements, so one C tile per sub-block
//! from an A tile of 16 tokens × 16 bytes and a B tile of 4 rows × 64 bytes. The weights stay
//! unsigned (`q`, not `q - 32`), as in the VNNI tile: `32 · Σ_s scale[s] · Σ(activations of
//! sub-block s)` comes off at the end, from the activations' exact sums.

use std::arch::x86_64::*;

use super::{Format, Sums, Unpacked, f16_rows16, rows16, scaled_sums};
use crate::quant::BlockQ8K;

pub(super) struct Q6K;

/// The scales of two group blocks as 16 lanes (rows): the 16 sub-blocks' signed scales, the
/// same as 16-bit pairs of sub-blocks (0, 1) .. (14, 15), and `d`.
pub(super) struct Scales {
    sc: [__m512i; 16],
    pairs: [__m512i; 8],
    d: __m512,
}

/// Bytes of a B tile (4 rows of 64).
const B_TILE: usize = super::b_tile_bytes(<Q6K as Format>::SUB);

impl Format for Q6K {
    const GROUP_BYTES: usize = 1680;
    const SUB: usize = 16;
    type Scales = Scales;

    /// Half `n`'s columns `4u .. 4u + 4` of field `j` (element `128n + 32j + 4u`, sub-block
    /// `8n + 2j + u / 4`): low 4 bits from `ql` chunk `u` (`j` even) or `8 + u`, low nibbles
    /// for `j < 2`; top 2 bits from `qh` chunk `u`, bits `2j`.
    #[inline(always)]
    unsafe fn unpack(b0: *const u8, b1: *const u8, out: *mut Unpacked) {
        // SAFETY: the halves' chunks lie inside the blocks; the stores fill the 16 B tiles;
        // AVX-512 where this is inlined.
        unsafe {
            let m4 = _mm512_set1_epi8(0x0F);
            let m2 = _mm512_set1_epi8(3);
            let tiles = out.cast::<u8>();
            let load = |off: usize| {
                rows16(
                    _mm256_loadu_si256(b0.add(off).cast()),
                    _mm256_loadu_si256(b1.add(off).cast()),
                )
            };
            for n in 0..2 {
                let half = 144 + 768 * n;
                for u in 0..8 {
                    let ql = [load(half + 32 * u), load(half + 256 + 32 * u)];
                    let qh = load(half + 512 + 32 * u);
                    for j in 0..4 {
                        let lo = if j < 2 {
                            ql[j % 2]
                        } else {
                            _mm512_srli_epi16::<4>(ql[j % 2])
                        };
                        let top = _mm512_srl_epi16(qh, _mm_cvtsi32_si128(2 * j as i32));
                        let w = _mm512_or_si512(
                            _mm512_and_si512(lo, m4),
                            _mm512_slli_epi16::<4>(_mm512_and_si512(top, m2)),
                        );
                        let s = 8 * n + 2 * j + u / 4;
                        _mm512_store_si512(tiles.add(B_TILE * s + 64 * (u % 4)).cast(), w);
                    }
                }
            }
        }
    }

    #[inline(always)]
    unsafe fn scales(b0: *const u8, b1: *const u8) -> Scales {
        // SAFETY: the headers and scales lie inside the blocks; AVX-512 where this is inlined.
        unsafe {
            // Sub-block s of row r at byte 16 + 8s + r.
            let sc = std::array::from_fn(|s| {
                _mm512_cvtepi8_epi32(_mm_unpacklo_epi64(
                    _mm_loadl_epi64(b0.add(16 + 8 * s).cast()),
                    _mm_loadl_epi64(b1.add(16 + 8 * s).cast()),
                ))
            });
            let pair = |b: *const u8, i: usize| {
                let x = _mm_loadu_si128(b.add(16 + 16 * i).cast());
                _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x, _mm_srli_si128::<8>(x)))
            };
            Scales {
                sc,
                pairs: std::array::from_fn(|i| rows16(pair(b0, i), pair(b1, i))),
                d: f16_rows16(b0, b1, 0),
            }
        }
    }

    /// As `x8k::q6_kx8` with `vnni_k::Dpbusd` does for 8 rows: `d·y.d·(Σ_s sc[s]·sums[s] -
    /// 32·Σ_s sc[s]·Σ(activations of s))`.
    #[inline(always)]
    unsafe fn accumulate(sc: &Scales, sums: *const Sums, m: usize, y: &BlockQ8K, acc: &mut __m512) {
        // SAFETY: the 16 C tiles are written; the bsums reads lie inside `y`; AVX-512 where
        // this is inlined.
        unsafe {
            let mut sumi = scaled_sums(sums, m, &sc.sc);
            let bs = y.bsums.as_ptr().cast::<i32>();
            let mut off = _mm512_setzero_si512();
            for (i, pair) in sc.pairs.iter().enumerate() {
                let b = _mm512_set1_epi32(std::ptr::read_unaligned(bs.add(i)));
                off = _mm512_add_epi32(off, _mm512_madd_epi16(*pair, b));
            }
            sumi = _mm512_sub_epi32(sumi, _mm512_slli_epi32::<5>(off));
            let dy = _mm512_mul_ps(sc.d, _mm512_set1_ps(y.d));
            *acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi), dy, *acc);
        }
    }
}
