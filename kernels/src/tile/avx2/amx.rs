//! AMX-INT8 prefill tile for interleaved Q4_K ([`crate::Isa::Amx`]): one `tdpbsud` multiplies
//! 16 tokens' signed activation bytes by 16 rows' unsigned nibbles over one 32-element
//! sub-block (8,192 products, where a 256-bit `vpdpbusd` makes 32). The tile registers
//! cannot meet per-row scales, so each sub-block's 16 × 16 sums go through memory once and
//! meet their scales in 512-bit registers, as the VNNI tile's do in 256-bit ones.
//!
//! Layout per sub-block `s` of a 16-row pair of x8 groups: the A tile is 16 tokens' 32
//! activation bytes, read in place from their [`BlockQ8K`]s (stride = one token's row); the
//! B tile is 8 rows of 64 bytes, row `v` = x8 chunk `8p + v` of the first group then of the
//! second (`p = s / 2`), low nibbles for even `s`, high for odd, so byte `4n + i` of row `v`
//! is element `4v + i` of weight row `n`. The C tile is then token `m`'s 16 rows at row `m`.
//!
//! The integer sums are exact and meet the scales in the VNNI tile's order, so the results
//! are bit-identical to it. Tokens and rows that do not fill a 16 × 16 block go to the VNNI
//! tile. Tile state is configured and released within each call (threads share nothing).

use std::arch::asm;
use std::arch::x86_64::*;

use super::x8k::q4k_scales;
use crate::quant::BlockQ8K;
use crate::tile::{Tile, TileFn};
use crate::{DType, repack::Layout};

/// Tokens (A and C tile rows) and weight rows (C tile columns) of one block.
const TOK: usize = 16;
const ROWS: usize = 16;

/// Bytes of one Q4_Kx8 group block, and where its quants start.
const GROUP_BYTES: usize = 1152;
const QUANTS: usize = 128;

/// Bytes of one [`BlockQ8K`] and where its quants start.
const Q8K_BYTES: usize = size_of::<BlockQ8K>();
const Q8K_QS: usize = 4;

/// Most tokens whose sums stay in one call's accumulator ([`crate::matmul`] hands out 64).
const TOK_CHUNK: usize = 64;

/// The AMX tile for `dtype` in `layout`, if there is one (else the VNNI one applies).
pub(crate) fn tile_fn(dtype: DType, layout: Layout) -> Option<TileFn> {
    (layout == Layout::X8 && dtype == DType::Q4_K).then_some(tile_q4_kx8 as TileFn)
}

/// Palette 1: tmm0-3 the C tiles (16 × 64 bytes), tmm4-5 the A tiles (16 × 32), tmm6-7 the
/// B tiles (8 × 64).
#[repr(C, align(64))]
struct TileConfig([u8; 64]);

impl TileConfig {
    fn new() -> TileConfig {
        let mut b = [0u8; 64];
        b[0] = 1;
        let shapes: [(u8, u16); 8] = [
            (16, 64),
            (16, 64),
            (16, 64),
            (16, 64),
            (16, 32),
            (16, 32),
            (8, 64),
            (8, 64),
        ];
        for (i, (rows, colsb)) in shapes.into_iter().enumerate() {
            b[16 + 2 * i..18 + 2 * i].copy_from_slice(&colsb.to_le_bytes());
            b[48 + i] = rows;
        }
        TileConfig(b)
    }
}

/// The 8 B tiles of one 16-row pair of group blocks.
#[repr(C, align(64))]
struct Unpacked([[u8; 512]; 8]);

/// The 8 C tiles of one 16-token block: token `m`, row `n` at `16m + n`.
#[repr(C, align(64))]
struct Sums([[i32; TOK * ROWS]; 8]);

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have AVX-512 VNNI and AMX-INT8, with the OS's
/// permission for tile data ([`crate::Isa::Amx`] is only detected so).
pub(crate) unsafe fn tile_q4_kx8(t: &Tile) {
    let vnni = super::vnni_k::tile_q4_kx8;
    let (ntok, nrows) = (t.ntok / TOK * TOK, t.nrows / ROWS * ROWS);
    // SAFETY: forwarded from the caller; the parts below lie inside `t`.
    unsafe {
        if ntok == 0 || nrows == 0 {
            return vnni(t);
        }
        blocks(t, nrows, ntok);
        if nrows < t.nrows {
            vnni(&part(t, nrows, t.nrows - nrows, 0, t.ntok));
        }
        if ntok < t.ntok {
            vnni(&part(t, 0, nrows, ntok, t.ntok - ntok));
        }
    }
}

/// Rows `r0 .. r0 + nrows` and tokens `t0 .. t0 + ntok` of `t` (`r0` a multiple of 8).
fn part(t: &Tile, r0: usize, nrows: usize, t0: usize, ntok: usize) -> Tile {
    Tile {
        w: t.w.wrapping_add(r0 * t.w_stride),
        nrows,
        a: t.a.wrapping_add(t0 * t.a_stride),
        ntok,
        out: t.out.wrapping_add(t0 * t.out_stride + r0),
        ..*t
    }
}

/// The first `nrows` rows (a multiple of 16) and `ntok` tokens (a multiple of 16) of `t`.
///
/// # Safety
/// As for [`tile_q4_kx8`].
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn blocks(t: &Tile, nrows: usize, ntok: usize) {
    let config = TileConfig::new();
    let mut unpacked = Unpacked([[0; 512]; 8]);
    let mut sums = Sums([[0; TOK * ROWS]; 8]);
    let mut acc = [_mm512_setzero_ps(); TOK_CHUNK];
    let nb = t.k / 256;
    // SAFETY: the configuration is valid for palette 1; every tile load and store below
    // reads or writes inside `t`'s buffers or the local ones; tiles are released at the end.
    unsafe {
        asm!("ldtilecfg [{}]", in(reg) config.0.as_ptr(), options(nostack, readonly));
        for r0 in (0..nrows).step_by(ROWS) {
            let g0 = t.w.add(r0 * t.w_stride);
            let g1 = g0.add(8 * t.w_stride);
            for t0 in (0..ntok).step_by(TOK_CHUNK) {
                let nt = (ntok - t0).min(TOK_CHUNK);
                acc[..nt].fill(_mm512_setzero_ps());
                for b in 0..nb {
                    let (b0, b1) = (g0.add(b * GROUP_BYTES), g1.add(b * GROUP_BYTES));
                    unpack(b0, b1, &mut unpacked);
                    let pair = PairScales::new(b0, b1);
                    for m0 in (0..nt).step_by(TOK) {
                        let a = t.a.add((t0 + m0) * t.a_stride + b * Q8K_BYTES);
                        products(a.add(Q8K_QS), t.a_stride, &unpacked, &mut sums);
                        for m in 0..TOK {
                            let y = &*a.add(m * t.a_stride).cast::<BlockQ8K>();
                            pair.accumulate(&sums, m, y, &mut acc[m0 + m]);
                        }
                    }
                }
                for (m, v) in acc[..nt].iter().enumerate() {
                    _mm512_storeu_ps(t.out.add((t0 + m) * t.out_stride + r0), *v);
                }
            }
        }
        asm!("tilerelease", options(nostack, nomem));
    }
}

/// Splits the quants of two group blocks into the 8 B tiles (module docs).
///
/// # Safety
/// `b0` and `b1` must be whole Q4_Kx8 group blocks.
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn unpack(b0: *const u8, b1: *const u8, out: &mut Unpacked) {
    let m4 = _mm512_set1_epi8(0x0F);
    // SAFETY: 32 chunks of 32 bytes after the headers of each block; the stores fill `out`.
    unsafe {
        for p in 0..4 {
            for v in 0..8 {
                let u = QUANTS + 32 * (8 * p + v);
                let lo = _mm256_loadu_si256(b0.add(u).cast());
                let hi = _mm256_loadu_si256(b1.add(u).cast());
                let q = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
                let dst = 64 * v;
                _mm512_store_si512(
                    out.0[2 * p].as_mut_ptr().add(dst).cast(),
                    _mm512_and_si512(q, m4),
                );
                _mm512_store_si512(
                    out.0[2 * p + 1].as_mut_ptr().add(dst).cast(),
                    _mm512_and_si512(_mm512_srli_epi16::<4>(q), m4),
                );
            }
        }
    }
}

/// The 8 sub-blocks' products of 16 tokens (activation quants at `a`, one token every
/// `a_stride` bytes) and 16 rows, into `sums`.
///
/// # Safety
/// Tiles configured by [`TileConfig`]; 16 tokens' 256 quants readable at `a`.
#[inline]
unsafe fn products(a: *const u8, a_stride: usize, w: &Unpacked, sums: &mut Sums) {
    macro_rules! sub_block {
        ($s:literal, $ta:literal, $tb:literal, $tc:literal) => {
            asm!(
                concat!("tileloadd tmm", $ta, ", [{a} + {sa}*1]"),
                concat!("tileloadd tmm", $tb, ", [{b} + {sb}*1]"),
                concat!("tilezero tmm", $tc),
                concat!("tdpbsud tmm", $tc, ", tmm", $ta, ", tmm", $tb),
                concat!("tilestored [{c} + {sc}*1], tmm", $tc),
                a = in(reg) a.add(32 * $s),
                sa = in(reg) a_stride,
                b = in(reg) w.0[$s].as_ptr(),
                sb = in(reg) 64usize,
                c = in(reg) sums.0[$s].as_mut_ptr(),
                sc = in(reg) 64usize,
                options(nostack),
            )
        };
    }
    // SAFETY: guaranteed by the caller; two A, two B and four C tiles alternate so that
    // consecutive sub-blocks do not wait on each other's registers.
    unsafe {
        sub_block!(0, 4, 6, 0);
        sub_block!(1, 5, 7, 1);
        sub_block!(2, 4, 6, 2);
        sub_block!(3, 5, 7, 3);
        sub_block!(4, 4, 6, 0);
        sub_block!(5, 5, 7, 1);
        sub_block!(6, 4, 6, 2);
        sub_block!(7, 5, 7, 3);
    }
}

/// The scales of two group blocks as 16 lanes (rows): the 8 sub-blocks' scales, the mins as
/// 16-bit pairs of sub-blocks (0, 1) .. (6, 7), `d` and `dmin`.
struct PairScales {
    sc: [__m512i; 8],
    mins: [__m512i; 4],
    d: __m512,
    dmin: __m512,
}

impl PairScales {
    /// # Safety
    /// `b0` and `b1` must be whole Q4_Kx8 group blocks.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn new(b0: *const u8, b1: *const u8) -> PairScales {
        // SAFETY: the headers and scale planes lie inside the blocks.
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
                let x = _mm_unpacklo_epi64(
                    _mm_loadl_epi64(bytes[0].as_ptr().add(8 * s).cast()),
                    _mm_loadl_epi64(bytes[1].as_ptr().add(8 * s).cast()),
                );
                _mm512_cvtepu8_epi32(x)
            });
            let mins = std::array::from_fn(|i| {
                _mm512_inserti64x4::<1>(_mm512_castsi256_si512(mins0[i]), mins1[i])
            });
            let halves = |off: usize| {
                _mm512_cvtph_ps(_mm256_set_m128i(
                    _mm_loadu_si128(b1.add(off).cast()),
                    _mm_loadu_si128(b0.add(off).cast()),
                ))
            };
            PairScales {
                sc,
                mins,
                d: halves(0),
                dmin: halves(16),
            }
        }
    }

    /// Adds token `m`'s share of the two blocks to `acc` (16 rows), as `x8k::q4k_acc` does
    /// for 8: `d·y.d·Σ_s sc[s]·sums[s]` minus `dmin·y.d·Σ_s min[s]·Σ(activations of s)`.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    fn accumulate(&self, sums: &Sums, m: usize, y: &BlockQ8K, acc: &mut __m512) {
        let row = |s: usize| {
            // SAFETY: row m of C tile s is 16 i32 inside `sums`.
            unsafe { _mm512_load_si512(sums.0[s].as_ptr().add(ROWS * m).cast()) }
        };
        let mut sumi = _mm512_mullo_epi32(row(0), self.sc[0]);
        for s in 1..8 {
            sumi = _mm512_add_epi32(sumi, _mm512_mullo_epi32(row(s), self.sc[s]));
        }
        // Sums of the 8 sub-blocks' activations as 4 pairs of i16.
        let mut bs = [0i32; 4];
        // SAFETY: the two loads cover the 16 `bsums`; the store fills `bs`.
        unsafe {
            let pairs = _mm_hadd_epi16(
                _mm_loadu_si128(y.bsums.as_ptr().cast()),
                _mm_loadu_si128(y.bsums.as_ptr().add(8).cast()),
            );
            _mm_storeu_si128(bs.as_mut_ptr().cast(), pairs);
        }
        let mut summ = _mm512_setzero_si512();
        for (mins, b) in self.mins.iter().zip(bs) {
            summ = _mm512_add_epi32(summ, _mm512_madd_epi16(*mins, _mm512_set1_epi32(b)));
        }
        let yd = _mm512_set1_ps(y.d);
        *acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sumi), _mm512_mul_ps(self.d, yd), *acc);
        *acc = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(summ), _mm512_mul_ps(self.dmin, yd), *acc);
    }
}
