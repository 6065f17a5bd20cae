//! AMX-INT8 prefill tiles for interleaved Q4_K and Q6_K ([`crate::Isa::Amx`]): one `tdpbsud`
//! multiplies 16 tokens' signed activation bytes by 16 rows' unsigned weights over one
//! sub-block (Q4_K: 32 elements, 8,192 products; Q6_K: 16 elements, 4,096), where a 256-bit
//! `vpdpbusd` makes 32. The tile registers cannot meet per-row scales, so each sub-block's
//! 16 × 16 sums go through memory once and meet their scales in 512-bit registers, as the
//! VNNI tiles' do in 256-bit ones.
//!
//! Per sub-block of a 16-row pair of x8 groups: the A tile is 16 tokens' activation bytes of
//! the sub-block, read in place from their [`BlockQ8K`]s (stride = one token's row); the B
//! tile holds 4 columns per row of 64 bytes, 32 from the first group then 32 from the
//! second, so byte `4n + i` of B row `v` is element `4v + i` of the sub-block in weight row
//! `n` (the format's `unpack` builds them from the x8 chunks, which are already so for 8
//! rows); the C tile is then token `m`'s 16 rows at row `m`.
//!
//! The integer sums are exact and meet the scales in the VNNI tiles' order, so the results
//! are bit-identical to theirs. Tokens and rows that do not fill a 16 × 16 block go to the
//! VNNI tile. Tile state is configured and released within each call (threads share nothing).

mod q4_k;
mod q6_k;

use std::arch::asm;
use std::arch::x86_64::*;

use crate::quant::BlockQ8K;
use crate::tile::{Tile, TileFn};
use crate::{DType, repack::Layout};

/// Tokens (A and C tile rows) and weight rows (C tile columns) of one block.
const TOK: usize = 16;
const ROWS: usize = 16;

/// Bytes of one [`BlockQ8K`] and where its quants start.
const Q8K_BYTES: usize = size_of::<BlockQ8K>();
const Q8K_QS: usize = std::mem::offset_of!(BlockQ8K, qs);

/// Most tokens whose sums stay in one call's accumulator ([`crate::matmul()`] hands out 64).
const TOK_CHUNK: usize = 64;

/// The AMX tile for `dtype` in `layout`, if there is one (else the VNNI one applies).
pub(crate) fn tile_fn(dtype: DType, layout: Layout) -> Option<TileFn> {
    match (dtype, layout) {
        (DType::Q4_K, Layout::X8) => Some(tile_q4_kx8),
        (DType::Q6_K, Layout::X8) => Some(tile_q6_kx8),
        _ => None,
    }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have AVX-512 VNNI and AMX-INT8, with the OS's
/// permission for tile data ([`crate::Isa::Amx`] is only detected so).
pub(crate) unsafe fn tile_q4_kx8(t: &Tile) {
    // SAFETY: forwarded.
    unsafe { tile::<q4_k::Q4K>(t, super::vnni::evex::tile_q4_kx8) }
}

/// # Safety
/// As for [`tile_q4_kx8`].
pub(crate) unsafe fn tile_q6_kx8(t: &Tile) {
    // SAFETY: forwarded.
    unsafe { tile::<q6_k::Q6K>(t, super::vnni::evex::tile_q6_kx8) }
}

/// The parts of one K-quant format's AMX tile. The methods carry no target features of
/// their own: they are inlined into [`blocks`], which has them.
trait Format {
    /// Bytes of one x8 group block.
    const GROUP_BYTES: usize;
    /// Elements of one sub-block (one scale): the A tiles' bytes per row; the B tiles have a
    /// row per 4 of them ([`b_tile_bytes`]).
    const SUB: usize;
    /// The scales of two group blocks, as [`Format::accumulate`] takes them.
    type Scales;

    /// Splits the quants of two group blocks into the B tiles.
    ///
    /// # Safety
    /// `b0` and `b1` whole group blocks of this format.
    unsafe fn unpack(b0: *const u8, b1: *const u8, out: *mut Unpacked);
    /// # Safety
    /// As for [`Format::unpack`].
    unsafe fn scales(b0: *const u8, b1: *const u8) -> Self::Scales;
    /// Adds token `m`'s share of the two blocks to its 16 rows in `acc`.
    ///
    /// # Safety
    /// `sums` written by [`products`] for this format.
    unsafe fn accumulate(
        sc: &Self::Scales,
        sums: *const Sums,
        m: usize,
        y: &BlockQ8K,
        acc: &mut __m512,
    );
}

/// Bytes of the B tile of a sub-block of `sub` elements: a row of 64 bytes per 4 columns.
const fn b_tile_bytes(sub: usize) -> usize {
    sub / 4 * 64
}

/// Palette 1 for sub-blocks of `sub` elements: tmm0-3 the C tiles (16 × 64 bytes), tmm4-5 the
/// A tiles (16 × `sub`), tmm6-7 the B tiles (`sub / 4` × 64).
#[repr(C, align(64))]
struct TileConfig([u8; 64]);

impl TileConfig {
    fn new(sub: usize) -> TileConfig {
        let (c, a, b) = ((16, 64), (16, sub as u16), ((sub / 4) as u8, 64));
        let shapes: [(u8, u16); 8] = [c, c, c, c, a, a, b, b];
        let mut b = [0u8; 64];
        b[0] = 1;
        for (i, (rows, colsb)) in shapes.into_iter().enumerate() {
            b[16 + 2 * i..18 + 2 * i].copy_from_slice(&colsb.to_le_bytes());
            b[48 + i] = rows;
        }
        TileConfig(b)
    }
}

/// The B tiles of one 16-row pair of group blocks (4 KB in both formats).
#[repr(C, align(64))]
struct Unpacked([u8; 4096]);

/// The C tiles of one 16-token block, one per sub-block: token `m`, row `n` at `16m + n`.
#[repr(C, align(64))]
struct Sums([[i32; TOK * ROWS]; 16]);

/// `Σ_s sc[s] · (row m of C tile s)`: token `m`'s sums of the sub-blocks times their rows'
/// scales, exact in 32 bits.
///
/// # Safety
/// `m < 16`, the first `sc.len()` (≤ 16) C tiles written; AVX-512 where this is inlined.
#[inline(always)]
unsafe fn scaled_sums(sums: *const Sums, m: usize, sc: &[__m512i]) -> __m512i {
    let tiles = sums.cast::<[i32; TOK * ROWS]>();
    // SAFETY: guaranteed by the caller; rows are 64-byte aligned.
    unsafe {
        let row = |s: usize| _mm512_load_si512(tiles.add(s).cast::<i32>().add(ROWS * m).cast());
        let mut sumi = _mm512_setzero_si512();
        for (s, sc) in sc.iter().enumerate() {
            sumi = _mm512_add_epi32(sumi, _mm512_mullo_epi32(row(s), *sc));
        }
        sumi
    }
}

/// One sub-block's product: A tile `$ta` from `$a` (`$sa` apart), B tile `$tb` from `$b`
/// (64 bytes apart), into C tile `$tc`, stored to `$c` (64 bytes apart).
macro_rules! sub_block {
    ($ta:literal, $tb:literal, $tc:literal, $a:expr, $sa:expr, $b:expr, $c:expr) => {
        std::arch::asm!(
            concat!("tileloadd tmm", $ta, ", [{a} + {sa}*1]"),
            concat!("tileloadd tmm", $tb, ", [{b} + {sb}*1]"),
            concat!("tilezero tmm", $tc),
            concat!("tdpbsud tmm", $tc, ", tmm", $ta, ", tmm", $tb),
            concat!("tilestored [{c} + {sc}*1], tmm", $tc),
            a = in(reg) $a,
            sa = in(reg) $sa,
            b = in(reg) $b,
            sb = in(reg) 64usize,
            c = in(reg) $c,
            sc = in(reg) 64usize,
            options(nostack),
        )
    };
}

/// Every sub-block's products of 16 tokens (quants at `a`, `a_stride` apart) and the B tiles
/// in `w`, into `sums`. Two A, two B and four C tiles alternate so that consecutive
/// sub-blocks do not wait on each other's registers.
///
/// # Safety
/// Tiles configured by [`TileConfig::new`]`(F::SUB)`; 16 tokens' 256 quants readable at `a`;
/// `w` written by `F::unpack`; `sums` writable.
#[inline(always)]
unsafe fn products<F: Format>(a: *const u8, a_stride: usize, w: *const Unpacked, sums: *mut Sums) {
    let (k, bt) = (F::SUB, b_tile_bytes(F::SUB));
    // SAFETY: guaranteed by the caller.
    unsafe {
        let (w, c) = (w.cast::<u8>(), sums.cast::<[i32; TOK * ROWS]>());
        for q in 0..256 / F::SUB / 4 {
            let s = 4 * q;
            let (a, w, c) = (a.add(k * s), w.add(bt * s), c.add(s));
            sub_block!(4, 6, 0, a, a_stride, w, c);
            sub_block!(5, 7, 1, a.add(k), a_stride, w.add(bt), c.add(1));
            sub_block!(4, 6, 2, a.add(2 * k), a_stride, w.add(2 * bt), c.add(2));
            sub_block!(5, 7, 3, a.add(3 * k), a_stride, w.add(3 * bt), c.add(3));
        }
    }
}

/// The AMX blocks of `t`, the rest by `rest` (the VNNI tile).
///
/// # Safety
/// As for [`tile_q4_kx8`], with `t` in `F`'s format.
unsafe fn tile<F: Format>(t: &Tile, rest: TileFn) {
    let (ntok, nrows) = (t.ntok / TOK * TOK, t.nrows / ROWS * ROWS);
    // SAFETY: forwarded from the caller; the parts below lie inside `t`.
    unsafe {
        if ntok == 0 || nrows == 0 {
            return rest(t);
        }
        blocks::<F>(t, nrows, ntok);
        if nrows < t.nrows {
            rest(&part(t, nrows, t.nrows - nrows, 0, t.ntok));
        }
        if ntok < t.ntok {
            rest(&part(t, 0, nrows, ntok, t.ntok - ntok));
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
/// As for [`tile`].
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn blocks<F: Format>(t: &Tile, nrows: usize, ntok: usize) {
    let config = TileConfig::new(F::SUB);
    // Both are written whole (every group block's unpack, every token block's products)
    // before they are read; zeroing 20 KB per call showed up in profiles.
    let mut unpacked = std::mem::MaybeUninit::<Unpacked>::uninit();
    let mut sums = std::mem::MaybeUninit::<Sums>::uninit();
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
                    let (b0, b1) = (g0.add(b * F::GROUP_BYTES), g1.add(b * F::GROUP_BYTES));
                    F::unpack(b0, b1, unpacked.as_mut_ptr());
                    let scales = F::scales(b0, b1);
                    for m0 in (0..nt).step_by(TOK) {
                        let a = t.a.add((t0 + m0) * t.a_stride + b * Q8K_BYTES);
                        products::<F>(
                            a.add(Q8K_QS),
                            t.a_stride,
                            unpacked.as_ptr(),
                            sums.as_mut_ptr(),
                        );
                        for m in 0..TOK {
                            let y = &*a.add(m * t.a_stride).cast::<BlockQ8K>();
                            F::accumulate(&scales, sums.as_ptr(), m, y, &mut acc[m0 + m]);
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

/// The 8 f16 values at byte `off` of each of two group blocks as 16 lanes (rows) of f32.
///
/// # Safety
/// 16 bytes readable at `off` in both blocks; AVX-512 where this is inlined.
#[inline(always)]
unsafe fn f16_rows16(b0: *const u8, b1: *const u8, off: usize) -> __m512 {
    // SAFETY: guaranteed by the caller.
    unsafe {
        _mm512_cvtph_ps(_mm256_set_m128i(
            _mm_loadu_si128(b1.add(off).cast()),
            _mm_loadu_si128(b0.add(off).cast()),
        ))
    }
}

/// Two groups' 8-row vectors as one of 16 rows (the first group in the low half).
#[inline(always)]
fn rows16(lo: __m256i, hi: __m256i) -> __m512i {
    // SAFETY: AVX-512F, present wherever this is inlined (`blocks`).
    unsafe { _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi) }
}
