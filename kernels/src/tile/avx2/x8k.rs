//! AVX2 tiles for the interleaved Q4_Kx8, Q5_Kx8 and Q6_Kx8 layouts (see `crate::repack`) against
//! [`BlockQ8K`] activations, and the loops the AVX-512 VNNI ones (`vnni_k`) share: each loop
//! is generic over its product step (`kstep`). As in the 32-element x8 tiles, lanes are rows;
//! with AVX2's `maddubs` each sub-block's 16-bit sums meet its per-row scale in one `madd`
//! (Q5_K: two, one per half, so the 16-bit sums cannot overflow). Their mins meet the
//! activation sums two sub-blocks per `madd`; Q6_K's weights are multiplied as stored
//! (0..63) and its zero (32) comes off at the end from the activations' sub-block sums. All
//! sums are exact integers, as GGML's.

use std::arch::x86_64::*;

use super::kstep::{KStep, Maddubs};
use super::x8::{PREFETCH, entry, prefetch, tile_x8};
use crate::quant::BlockQ8K;
use crate::tile::Tile;

/// Bytes of one Q4_Kx8 group block (8 rows x 256 columns).
const BYTES: usize = 1152;

/// 4 activation bytes at `i` broadcast to every lane.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn bcast(y: &BlockQ8K, i: usize) -> __m256i {
    // SAFETY: the caller keeps i + 4 <= 256.
    _mm256_set1_epi32(unsafe { std::ptr::read_unaligned(y.qs.as_ptr().add(i).cast::<i32>()) })
}

/// Mins of sub-blocks `s` (low 8 bytes of `x`) and `s + 1` (high 8 bytes) interleaved per
/// row as 16-bit pairs, ready to `madd` with the pair of activation sums.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn pair_rows(x: __m128i) -> __m256i {
    _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(x, _mm_srli_si128(x, 8)))
}

/// Calls `block(group block, activations, acc)` for the `nb` group blocks of `bytes` at `g`
/// (C tokens), requesting weights ahead, then stores each token's 8 rows.
///
/// # Safety
/// `nb` group blocks at `g`, `nb` activation blocks per token, 8 writable floats per output;
/// only called from AVX2 code (it is inlined there).
#[inline(always)]
unsafe fn each_block<const C: usize>(
    g: *const u8,
    nb: usize,
    bytes: usize,
    a: [*const BlockQ8K; C],
    out: [*mut f32; C],
    mut block: impl FnMut(*const u8, [&BlockQ8K; C], &mut [__m256; C]),
) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let mut acc = [_mm256_setzero_ps(); C];
        for b in 0..nb {
            let blk = g.add(b * bytes);
            prefetch::<3>(blk.wrapping_add(PREFETCH));
            block(blk, std::array::from_fn(|c| &*a[c].add(b)), &mut acc);
        }
        for c in 0..C {
            _mm256_storeu_ps(out[c], acc[c]);
        }
    }
}

/// A Q4_Kx8 group block's scales, byte `8s + r` for row `r`: sub-blocks 0..4 and 4..8 (each
/// 0..63); and its mins as [`pair_rows`] of sub-blocks (0, 1), (2, 3), (4, 5), (6, 7).
///
/// # Safety
/// `blk` must be a whole group block.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn q4k_scales(blk: *const u8) -> (__m256i, __m256i, [__m256i; 4]) {
    let m4 = _mm256_set1_epi8(0x0F);
    let m2 = _mm256_set1_epi8(3);
    let m30 = _mm256_set1_epi8(0x30);
    // SAFETY: the scale planes lie inside the group block.
    let (l, m, h) = unsafe {
        (
            _mm256_loadu_si256(blk.add(32).cast()),
            _mm256_loadu_si256(blk.add(64).cast()),
            _mm256_loadu_si256(blk.add(96).cast()),
        )
    };
    let sc_lo = _mm256_or_si256(
        _mm256_and_si256(l, m4),
        _mm256_slli_epi16(_mm256_and_si256(h, m2), 4),
    );
    let sc_hi = _mm256_or_si256(
        _mm256_and_si256(_mm256_srli_epi16(l, 4), m4),
        _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), m2), 4),
    );
    let mn_lo = _mm256_or_si256(_mm256_and_si256(m, m4), _mm256_and_si256(h, m30));
    let mn_hi = _mm256_or_si256(
        _mm256_and_si256(_mm256_srli_epi16(m, 4), m4),
        _mm256_and_si256(_mm256_srli_epi16(h, 2), m30),
    );
    let mins = [
        pair_rows(_mm256_castsi256_si128(mn_lo)),
        pair_rows(_mm256_extracti128_si256(mn_lo, 1)),
        pair_rows(_mm256_castsi256_si128(mn_hi)),
        pair_rows(_mm256_extracti128_si256(mn_hi, 1)),
    ];
    (sc_lo, sc_hi, mins)
}

/// Adds one token's share of a Q4_Kx8 group block to `acc`: `d·y.d·sumi` (the scaled
/// quant sums of the 8 rows) minus `dmin·y.d·Σ_s min[s]·Σ(activations of sub-block s)`.
///
/// # Safety
/// `blk` must be a whole group block.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q4k_acc(
    blk: *const u8,
    sumi: __m256i,
    mins: &[__m256i; 4],
    y: &BlockQ8K,
    acc: &mut __m256,
) {
    // SAFETY: d and dmin lie inside the group block.
    let (d, dmin) = unsafe {
        (
            _mm256_cvtph_ps(_mm_loadu_si128(blk.cast())),
            _mm256_cvtph_ps(_mm_loadu_si128(blk.add(16).cast())),
        )
    };
    let summ = q4k_mins(mins, y);
    let yd = _mm256_set1_ps(y.d);
    *acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_mul_ps(d, yd), *acc);
    *acc = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(summ), _mm256_mul_ps(dmin, yd), *acc);
}

/// `Σ_s min[s] · Σ(activations of sub-block s)` per row, from [`q4k_scales`]' mins.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn q4k_mins(mins: &[__m256i; 4], y: &BlockQ8K) -> __m256i {
    // Sums of the 8 sub-blocks' activations, as 4 pairs of i16.
    // SAFETY: the two loads cover the 16 `bsums`.
    let bs = unsafe {
        _mm_hadd_epi16(
            _mm_loadu_si128(y.bsums.as_ptr().cast()),
            _mm_loadu_si128(y.bsums.as_ptr().add(8).cast()),
        )
    };
    _mm256_add_epi32(
        _mm256_add_epi32(
            _mm256_madd_epi16(mins[0], _mm256_broadcastd_epi32(bs)),
            _mm256_madd_epi16(mins[1], _mm256_broadcastd_epi32(_mm_shuffle_epi32::<1>(bs))),
        ),
        _mm256_add_epi32(
            _mm256_madd_epi16(mins[2], _mm256_broadcastd_epi32(_mm_shuffle_epi32::<2>(bs))),
            _mm256_madd_epi16(mins[3], _mm256_broadcastd_epi32(_mm_shuffle_epi32::<3>(bs))),
        ),
    )
}

/// C tokens x one 8-row group of Q4_Kx8 (`FIVE = false`) or Q5_Kx8 (`FIVE = true`, fifth
/// bits in `qh` chunks before the quants), products by step `S`: `out[c][0..8]`.
///
/// # Safety
/// As for a group kernel (`x8::GroupFn`), and only called from an `entry!` tile compiled for
/// `S`'s target features: this carries AVX2's only, so a VNNI step's instructions are inlined
/// where this is, into the tile (the generated code has no calls left).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn kx8<const C: usize, const FIVE: bool, S: KStep>(
    g: *const u8,
    nb: usize,
    a: [*const BlockQ8K; C],
    out: [*mut f32; C],
) {
    let m4 = _mm256_set1_epi8(0x0F);
    let bit4 = _mm256_set1_epi8(0x10);
    let (bytes, quants) = if FIVE { (Q5_BYTES, 384) } else { (BYTES, 128) };
    // SAFETY: forwarded from the caller, as are the target features.
    unsafe {
        each_block(g, nb, bytes, a, out, |blk, y, acc| {
            if FIVE {
                prefetch::<4>(blk.wrapping_add(128 + PREFETCH));
            }
            // Q5_K's scales, mins, d and dmin sit where Q4_K's do.
            let (sc_lo, sc_hi, mins) = q4k_scales(blk);
            let (s0, s1) = S::rows_u8(_mm256_castsi256_si128(sc_lo));
            let (s2, s3) = S::rows_u8(_mm256_extracti128_si256(sc_lo, 1));
            let (s4, s5) = S::rows_u8(_mm256_castsi256_si128(sc_hi));
            let (s6, s7) = S::rows_u8(_mm256_extracti128_si256(sc_hi, 1));
            let sc = [s0, s1, s2, s3, s4, s5, s6, s7];
            let mut sumi = [_mm256_setzero_si256(); C];
            for p in 0..4 {
                let qs = blk.add(quants + 256 * p);
                prefetch::<4>(qs.wrapping_add(PREFETCH));
                // Fifth bits of sub-blocks 2p, 2p + 1 moved to bits 0, 1 of each byte.
                let shift = _mm_cvtsi32_si128(2 * p as i32);
                let mut plo = [_mm256_setzero_si256(); C];
                let mut phi = [_mm256_setzero_si256(); C];
                for u in 0..8 {
                    let q = _mm256_loadu_si256(qs.add(32 * u).cast());
                    let mut lo = _mm256_and_si256(q, m4);
                    let mut hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
                    if FIVE {
                        let h = _mm256_loadu_si256(blk.add(128 + 32 * u).cast());
                        let h = _mm256_srl_epi16(h, shift);
                        lo = _mm256_or_si256(lo, _mm256_and_si256(_mm256_slli_epi16(h, 4), bit4));
                        hi = _mm256_or_si256(hi, _mm256_and_si256(_mm256_slli_epi16(h, 3), bit4));
                    }
                    for c in 0..C {
                        plo[c] = S::step(plo[c], lo, bcast(y[c], 64 * p + 4 * u));
                        phi[c] = S::step(phi[c], hi, bcast(y[c], 64 * p + 32 + 4 * u));
                    }
                    // 16-bit sums (not `S::WIDE`): Q4_K's hold 8 products of at most
                    // 2*15*127 each, Q5_K's 4 of at most 2*31*127 (then flushed). Neither
                    // overflows.
                    if u == 7 || (FIVE && !S::WIDE && u == 3) {
                        for c in 0..C {
                            let s = _mm256_add_epi32(
                                S::scaled(plo[c], sc[2 * p]),
                                S::scaled(phi[c], sc[2 * p + 1]),
                            );
                            sumi[c] = _mm256_add_epi32(sumi[c], s);
                            plo[c] = _mm256_setzero_si256();
                            phi[c] = _mm256_setzero_si256();
                        }
                    }
                }
            }
            for c in 0..C {
                q4k_acc(blk, sumi[c], &mins, y[c], &mut acc[c]);
            }
        })
    }
}

/// Bytes of one Q5_Kx8 group block.
const Q5_BYTES: usize = 1408;

/// Bytes of one Q6_Kx8 group block.
const Q6_BYTES: usize = 1680;

/// Takes Q6_K's zero off the scaled sums `sumi` of group block `blk` (per token `c`, against
/// `y[c]`): the tiles multiply the stored 6-bit weights (0..63) as they are, so
/// `32 · Σ_s scale[s] · Σ(activations of sub-block s)` comes off, from the activations' exact
/// sub-block sums.
///
/// # Safety
/// `blk` must be a whole Q6_Kx8 group block.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q6_zero<const C: usize>(blk: *const u8, y: [&BlockQ8K; C], sumi: &mut [__m256i; C]) {
    // SAFETY: the scales lie inside the group block; AVX2, guaranteed by the caller.
    unsafe {
        // Scales of sub-blocks (2i, 2i + 1) interleaved per row as i16 pairs.
        let pairs: [__m256i; 8] = std::array::from_fn(|i| {
            let x = _mm_loadu_si128(blk.add(16 + 16 * i).cast());
            _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x, _mm_srli_si128(x, 8)))
        });
        for c in 0..C {
            let bs = y[c].bsums.as_ptr().cast::<i32>();
            let mut off = _mm256_setzero_si256();
            for (i, pair) in pairs.iter().enumerate() {
                let b = _mm256_set1_epi32(std::ptr::read_unaligned(bs.add(i)));
                off = _mm256_add_epi32(off, _mm256_madd_epi16(*pair, b));
            }
            sumi[c] = _mm256_sub_epi32(sumi[c], _mm256_slli_epi32(off, 5));
        }
    }
}

/// C tokens x one 8-row Q6_Kx8 group, products by step `S`: `out[c][0..8]`.
///
/// # Safety
/// As for [`kx8`].
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn q6_kx8<const C: usize, S: KStep>(
    g: *const u8,
    nb: usize,
    a: [*const BlockQ8K; C],
    out: [*mut f32; C],
) {
    let m4 = _mm256_set1_epi8(0x0F);
    let m2 = _mm256_set1_epi8(3);
    // SAFETY: forwarded from the caller, as are the target features.
    unsafe {
        each_block(g, nb, Q6_BYTES, a, out, |blk, y, acc| {
            let mut sumi = [_mm256_setzero_si256(); C];
            for n in 0..2 {
                let half = blk.add(144 + 768 * n);
                prefetch::<12>(half.wrapping_add(PREFETCH));
                for j in 0..4 {
                    // Nibbles of field j: ql chunk u (j even) or 8 + u (j odd), low (j < 2)
                    // or high; top bits: qh bits 2j, 2j + 1.
                    let ql = half.add(256 * (j % 2));
                    let shift = _mm_cvtsi32_si128(2 * j as i32);
                    for sub in 0..2 {
                        let s = 8 * n + 2 * j + sub;
                        let sc = S::rows_i8(_mm_loadl_epi64(blk.add(16 + 8 * s).cast()));
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
                                p[c] = S::step(p[c], w, x);
                            }
                            // 16-bit sums hold two steps: 4 products of at most 63*128.
                            if (u + 1) % S::Q6_RUN == 0 {
                                for c in 0..C {
                                    sumi[c] = _mm256_add_epi32(sumi[c], S::scaled(p[c], sc));
                                    p[c] = _mm256_setzero_si256();
                                }
                            }
                        }
                    }
                }
            }
            q6_zero(blk, y, &mut sumi);
            let d = _mm256_cvtph_ps(_mm_loadu_si128(blk.cast()));
            for c in 0..C {
                let dy = _mm256_mul_ps(d, _mm256_set1_ps(y[c].d));
                acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi[c]), dy, acc[c]);
            }
        })
    }
}

entry!(
    tile_q4_kx8,
    tile_q4_kx8_avx2,
    "avx2,fma,f16c",
    4,
    BlockQ8K,
    256,
    kx8,
    false,
    Maddubs
);
entry!(
    tile_q5_kx8,
    tile_q5_kx8_avx2,
    "avx2,fma,f16c",
    4,
    BlockQ8K,
    256,
    kx8,
    true,
    Maddubs
);
entry!(
    tile_q6_kx8,
    tile_q6_kx8_avx2,
    "avx2,fma,f16c",
    4,
    BlockQ8K,
    256,
    q6_kx8,
    Maddubs
);
