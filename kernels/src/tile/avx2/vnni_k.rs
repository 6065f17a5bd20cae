//! AVX-512 VNNI versions of the interleaved Q4_Kx8 and Q6_Kx8 tiles (see `x8k` for the
//! scheme): `vpdpbusd` sums each sub-block's products straight into 32-bit lanes (rows),
//! which meet the rows' scales in one 32-bit multiply. Q6_K's weights stay unsigned
//! (`q`, not `q - 32`): `32 · Σ_s scale[s] · Σ(activations of sub-block s)` comes off at the
//! end, from the activations' exact sub-block sums. Exact integer sums, as GGML's.

use std::arch::x86_64::*;

use super::x8::{PREFETCH, entry, prefetch, tile_x8};
use super::x8k::{BYTES, Q6_BYTES, bcast, each_block, q4k_acc, q4k_scales};
use crate::quant::BlockQ8K;
use crate::tile::Tile;

/// The scales of sub-blocks `2i` (low 8 bytes of `x`, row r at byte r) and `2i + 1` (high
/// 8 bytes) of 8 rows as i32 lanes: (sub-block 2i, sub-block 2i + 1).
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
fn rows_u32(x: __m128i) -> (__m256i, __m256i) {
    (
        _mm256_cvtepu8_epi32(x),
        _mm256_cvtepu8_epi32(_mm_srli_si128(x, 8)),
    )
}

/// C tokens x one 8-row Q4_Kx8 group: `out[c][0..8]`.
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn q4_kx8<const C: usize>(
    g: *const u8,
    nb: usize,
    a: [*const BlockQ8K; C],
    out: [*mut f32; C],
) {
    let m4 = _mm256_set1_epi8(0x0F);
    // SAFETY: forwarded from the caller.
    unsafe {
        each_block(g, nb, BYTES, a, out, |blk, y, acc| {
            let (sc_lo, sc_hi, mins) = q4k_scales(blk);
            let (s0, s1) = rows_u32(_mm256_castsi256_si128(sc_lo));
            let (s2, s3) = rows_u32(_mm256_extracti128_si256(sc_lo, 1));
            let (s4, s5) = rows_u32(_mm256_castsi256_si128(sc_hi));
            let (s6, s7) = rows_u32(_mm256_extracti128_si256(sc_hi, 1));
            let sc = [s0, s1, s2, s3, s4, s5, s6, s7];
            let mut sumi = [_mm256_setzero_si256(); C];
            for p in 0..4 {
                let qs = blk.add(128 + 256 * p);
                prefetch::<4>(qs.wrapping_add(PREFETCH));
                let mut slo = [_mm256_setzero_si256(); C];
                let mut shi = [_mm256_setzero_si256(); C];
                for u in 0..8 {
                    let q = _mm256_loadu_si256(qs.add(32 * u).cast());
                    let lo = _mm256_and_si256(q, m4);
                    let hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
                    for c in 0..C {
                        slo[c] = _mm256_dpbusd_epi32(slo[c], lo, bcast(y[c], 64 * p + 4 * u));
                        shi[c] = _mm256_dpbusd_epi32(shi[c], hi, bcast(y[c], 64 * p + 32 + 4 * u));
                    }
                }
                for c in 0..C {
                    let s = _mm256_add_epi32(
                        _mm256_mullo_epi32(slo[c], sc[2 * p]),
                        _mm256_mullo_epi32(shi[c], sc[2 * p + 1]),
                    );
                    sumi[c] = _mm256_add_epi32(sumi[c], s);
                }
            }
            for c in 0..C {
                q4k_acc(blk, sumi[c], &mins, y[c], &mut acc[c]);
            }
        })
    }
}

/// C tokens x one 8-row Q6_Kx8 group: `out[c][0..8]`.
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn q6_kx8<const C: usize>(
    g: *const u8,
    nb: usize,
    a: [*const BlockQ8K; C],
    out: [*mut f32; C],
) {
    let m4 = _mm256_set1_epi8(0x0F);
    let m2 = _mm256_set1_epi8(3);
    // SAFETY: forwarded from the caller.
    unsafe {
        each_block(g, nb, Q6_BYTES, a, out, |blk, y, acc| {
            let mut sumi = [_mm256_setzero_si256(); C];
            for n in 0..2 {
                let half = blk.add(144 + 768 * n);
                prefetch::<12>(half.wrapping_add(PREFETCH));
                for j in 0..4 {
                    // Field j as in `x8k::q6_kx8`, left unsigned (0..63).
                    let ql = half.add(256 * (j % 2));
                    let shift = _mm_cvtsi32_si128(2 * j as i32);
                    for sub in 0..2 {
                        let s = 8 * n + 2 * j + sub;
                        let mut p = [_mm256_setzero_si256(); C];
                        for u in 4 * sub..4 * sub + 4 {
                            let q = _mm256_loadu_si256(ql.add(32 * u).cast());
                            let qh = _mm256_loadu_si256(half.add(512 + 32 * u).cast());
                            let lo = if j < 2 { q } else { _mm256_srli_epi16(q, 4) };
                            let top = _mm256_and_si256(_mm256_srl_epi16(qh, shift), m2);
                            let w = _mm256_or_si256(
                                _mm256_and_si256(lo, m4),
                                _mm256_slli_epi16(top, 4),
                            );
                            for c in 0..C {
                                let x = bcast(y[c], 128 * n + 32 * j + 4 * u);
                                p[c] = _mm256_dpbusd_epi32(p[c], w, x);
                            }
                        }
                        let sc = _mm256_cvtepi8_epi32(_mm_loadl_epi64(blk.add(16 + 8 * s).cast()));
                        for c in 0..C {
                            sumi[c] = _mm256_add_epi32(sumi[c], _mm256_mullo_epi32(p[c], sc));
                        }
                    }
                }
            }
            // Scales of sub-blocks (2i, 2i + 1) interleaved per row as i16 pairs.
            let pairs: [__m256i; 8] = std::array::from_fn(|i| {
                let x = _mm_loadu_si128(blk.add(16 + 16 * i).cast());
                _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x, _mm_srli_si128(x, 8)))
            });
            let d = _mm256_cvtph_ps(_mm_loadu_si128(blk.cast()));
            for c in 0..C {
                let bs = y[c].bsums.as_ptr().cast::<i32>();
                let mut off = _mm256_setzero_si256();
                for (i, pair) in pairs.iter().enumerate() {
                    let b = _mm256_set1_epi32(std::ptr::read_unaligned(bs.add(i)));
                    off = _mm256_add_epi32(off, _mm256_madd_epi16(*pair, b));
                }
                let si = _mm256_sub_epi32(sumi[c], _mm256_slli_epi32(off, 5));
                let dy = _mm256_mul_ps(d, _mm256_set1_ps(y[c].d));
                acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), dy, acc[c]);
            }
        })
    }
}

entry!(
    tile_q4_kx8,
    tile_q4_kx8_vnni,
    "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni",
    4,
    BlockQ8K,
    256,
    q4_kx8
);
entry!(
    tile_q6_kx8,
    tile_q6_kx8_vnni,
    "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni",
    8,
    BlockQ8K,
    256,
    q6_kx8
);
