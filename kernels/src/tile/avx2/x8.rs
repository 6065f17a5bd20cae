//! AVX2 tiles for the interleaved x8 layouts (see `crate::repack`): each `maddubs` multiplies
//! 4 inputs of 8 rows at once against 4 broadcast activations, so lanes are rows: no
//! horizontal sums, and one scale FMA per block covers 8 rows. Q4_1 sums 8 `maddubs` in
//! 16 bits before one `madd` per block; Q8_0 needs the sign trick and a `madd` per chunk.
//! Q4_0 and Q5_0 keep their unsigned weights and take the offset off with the activations'
//! exact sums: exact integer sums, as GGML's.

use std::arch::x86_64::*;

use crate::quant::BlockQ8A;
use crate::repack::GROUP;
use crate::tile::Tile;

/// Broadcast of activation bytes `4i .. 4i+4` of a block.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn bcast(x: &BlockQ8A, i: usize) -> __m256i {
    // SAFETY: i < 8, inside the 32 quant bytes.
    _mm256_set1_epi32(unsafe { std::ptr::read_unaligned(x.qs.as_ptr().cast::<i32>().add(i)) })
}

/// How far ahead of the block being multiplied the kernels request weights, in bytes. The
/// hardware prefetcher alone lets a one-token stream stall on memory (it stops at every
/// 4 KiB page); requesting the bytes early keeps loads and arithmetic overlapped. Q4_1
/// decode over a 36 MB matrix, one core of a 2-core Zen VM: 7.2 GB/s without, 11.7 GB/s
/// with (as fast as from L2: the stream is no longer what limits it).
pub(super) const PREFETCH: usize = 4096;

/// Requests the `L` cache lines at `p` (a hint: never faults, even past the matrix).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) fn prefetch<const L: usize>(p: *const u8) {
    for l in 0..L {
        // SAFETY: prefetching is a hint that never faults on any address.
        _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64 * l).cast::<i8>());
    }
}

/// The 32 reordered `qh` bytes of a Q5_0x8 / Q5_1x8 group block at `p` (`FIVE`), else zero.
///
/// # Safety
/// With `FIVE`, `p` must be valid for 32 bytes.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn fifth_bit_bytes<const FIVE: bool>(p: *const u8) -> __m256i {
    if FIVE {
        // SAFETY: guaranteed by the caller.
        unsafe { _mm256_loadu_si256(p.cast()) }
    } else {
        _mm256_setzero_si256()
    }
}

/// The weights of quant chunk `u` (at `q`) of a 32-column x8 block as unsigned bytes: (low
/// nibbles, high nibbles), with `FIVE` their fifth bits from `qh`: bit `u` (low) and
/// `4 + u` (high) of the byte at the same position, moved to bit 4 (16-bit shifts: bit 4
/// only ever comes from its own byte).
///
/// # Safety
/// `q` must be valid for 32 bytes.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn chunk_values<const FIVE: bool>(
    q: *const u8,
    qh: __m256i,
    u: usize,
) -> (__m256i, __m256i) {
    let mask = _mm256_set1_epi8(0x0F);
    // SAFETY: guaranteed by the caller.
    let q = unsafe { _mm256_loadu_si256(q.cast()) };
    let mut lo = _mm256_and_si256(q, mask);
    let mut hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), mask);
    if FIVE {
        let bit4 = _mm256_set1_epi8(0x10);
        let n = _mm_cvtsi32_si128(u as i32);
        let hlo = _mm256_srl_epi16(_mm256_slli_epi16(qh, 4), n);
        lo = _mm256_or_si256(lo, _mm256_and_si256(hlo, bit4));
        hi = _mm256_or_si256(hi, _mm256_and_si256(_mm256_srl_epi16(qh, n), bit4));
    }
    (lo, hi)
}

/// C tokens x one 8-row group of a format with a minimum: Q4_1x8 (`FIVE = false`, 160-byte
/// group blocks: d, m, quants) or Q5_1x8 (`FIVE = true`, 192-byte group blocks: d, m,
/// reordered fifth bits, quants): `out[c][0..8]`. Weights stay unsigned (0..15, 0..31).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn qmx8<const C: usize, const FIVE: bool>(
    g: *const u8,
    nb: usize,
    a: [*const BlockQ8A; C],
    out: [*mut f32; C],
) {
    let (bytes, quants) = if FIVE { (192, 64) } else { (160, 32) };
    let ones = _mm256_set1_epi16(1);
    let mut acc = [_mm256_setzero_ps(); C];
    // SAFETY: the caller guarantees nb group blocks at `g`, nb activation blocks per token
    // and 8 writable floats per output pointer.
    unsafe {
        for b in 0..nb {
            let blk = g.add(b * bytes);
            prefetch::<3>(blk.wrapping_add(PREFETCH));
            let x: [&BlockQ8A; C] = std::array::from_fn(|c| &*a[c].add(b));
            let qh = fifth_bit_bytes::<FIVE>(blk.add(32));
            let mut plo = [_mm256_setzero_si256(); C];
            let mut phi = [_mm256_setzero_si256(); C];
            for u in 0..4 {
                let (lo, hi) = chunk_values::<FIVE>(blk.add(quants + 32 * u), qh, u);
                for c in 0..C {
                    // Q5_1: 4 products of at most 2*31*127 each per sum; Q4_1 (one sum): 8 of
                    // at most 2*15*127. Neither overflows 16 bits.
                    plo[c] = _mm256_add_epi16(plo[c], _mm256_maddubs_epi16(lo, bcast(x[c], u)));
                    let ph = _mm256_maddubs_epi16(hi, bcast(x[c], 4 + u));
                    if FIVE {
                        phi[c] = _mm256_add_epi16(phi[c], ph);
                    } else {
                        plo[c] = _mm256_add_epi16(plo[c], ph);
                    }
                }
            }
            let d = _mm256_cvtph_ps(_mm_loadu_si128(blk.cast()));
            let m = _mm256_cvtph_ps(_mm_loadu_si128(blk.add(16).cast()));
            for c in 0..C {
                let mut s = _mm256_madd_epi16(plo[c], ones);
                if FIVE {
                    s = _mm256_add_epi32(s, _mm256_madd_epi16(phi[c], ones));
                }
                let s = _mm256_cvtepi32_ps(s);
                acc[c] = _mm256_fmadd_ps(s, _mm256_mul_ps(d, _mm256_set1_ps(x[c].d)), acc[c]);
                acc[c] = _mm256_fmadd_ps(m, _mm256_set1_ps(x[c].s), acc[c]);
            }
        }
        for c in 0..C {
            _mm256_storeu_ps(out[c], acc[c]);
        }
    }
}

/// C tokens x one 8-row Q8_0x8 group (272-byte group blocks): `out[c][0..8]`.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q8_0x8<const C: usize>(
    g: *const u8,
    nb: usize,
    a: [*const BlockQ8A; C],
    out: [*mut f32; C],
) {
    let ones = _mm256_set1_epi16(1);
    let mut acc = [_mm256_setzero_ps(); C];
    // SAFETY: as for `qmx8`, with 272-byte group blocks.
    unsafe {
        for b in 0..nb {
            let blk = g.add(b * 272);
            prefetch::<5>(blk.wrapping_add(PREFETCH));
            let x: [&BlockQ8A; C] = std::array::from_fn(|c| &*a[c].add(b));
            let mut s = [_mm256_setzero_si256(); C];
            for u in 0..8 {
                let w = _mm256_loadu_si256(blk.add(16 + 32 * u).cast());
                let aw = _mm256_sign_epi8(w, w);
                for c in 0..C {
                    let p = _mm256_maddubs_epi16(aw, _mm256_sign_epi8(bcast(x[c], u), w));
                    s[c] = _mm256_add_epi32(s[c], _mm256_madd_epi16(p, ones));
                }
            }
            let d = _mm256_cvtph_ps(_mm_loadu_si128(blk.cast()));
            for c in 0..C {
                acc[c] = _mm256_fmadd_ps(
                    _mm256_cvtepi32_ps(s[c]),
                    _mm256_mul_ps(d, _mm256_set1_ps(x[c].d)),
                    acc[c],
                );
            }
        }
        for c in 0..C {
            _mm256_storeu_ps(out[c], acc[c]);
        }
    }
}

/// C tokens x one 8-row group of a zero-offset format: Q4_0x8 (`FIVE = false`, 144-byte
/// group blocks: d, quants) or Q5_0x8 (`FIVE = true`, 176-byte group blocks: d, reordered
/// fifth bits, quants). The weights stay unsigned (`q`, no sign trick): `maddubs` takes them
/// as they are and the offset comes off the exact integer sum, `Σ(q - z)x = Σqx - z·Σx`.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn qsx8<const C: usize, const FIVE: bool>(
    g: *const u8,
    nb: usize,
    a: [*const BlockQ8A; C],
    out: [*mut f32; C],
) {
    let (bytes, quants, z) = if FIVE { (176, 48, 16) } else { (144, 16, 8) };
    let ones = _mm256_set1_epi16(1);
    let mut acc = [_mm256_setzero_ps(); C];
    // SAFETY: as for `qmx8`, with `bytes`-byte group blocks.
    unsafe {
        for b in 0..nb {
            let blk = g.add(b * bytes);
            prefetch::<3>(blk.wrapping_add(PREFETCH));
            let x: [&BlockQ8A; C] = std::array::from_fn(|c| &*a[c].add(b));
            let qh = fifth_bit_bytes::<FIVE>(blk.add(16));
            let mut p = [_mm256_setzero_si256(); C];
            let mut s = [_mm256_setzero_si256(); C];
            for u in 0..4 {
                let (lo, hi) = chunk_values::<FIVE>(blk.add(quants + 32 * u), qh, u);
                for c in 0..C {
                    // Q4_0: 8 products of at most 2*15*127; Q5_0: 4 of at most 2*31*127
                    // before each widening: the 16-bit sums cannot overflow.
                    p[c] = _mm256_add_epi16(p[c], _mm256_maddubs_epi16(lo, bcast(x[c], u)));
                    p[c] = _mm256_add_epi16(p[c], _mm256_maddubs_epi16(hi, bcast(x[c], 4 + u)));
                }
                if FIVE && u % 2 == 1 {
                    for c in 0..C {
                        s[c] = _mm256_add_epi32(s[c], _mm256_madd_epi16(p[c], ones));
                        p[c] = _mm256_setzero_si256();
                    }
                }
            }
            let d = _mm256_cvtph_ps(_mm_loadu_si128(blk.cast()));
            for c in 0..C {
                let si = if FIVE {
                    s[c]
                } else {
                    _mm256_madd_epi16(p[c], ones)
                };
                let si = _mm256_sub_epi32(si, _mm256_set1_epi32(z * x[c].sum));
                let sf = _mm256_cvtepi32_ps(si);
                acc[c] = _mm256_fmadd_ps(sf, _mm256_mul_ps(d, _mm256_set1_ps(x[c].d)), acc[c]);
            }
        }
        for c in 0..C {
            _mm256_storeu_ps(out[c], acc[c]);
        }
    }
}

/// A group kernel: C tokens' activations (blocks of `A`) against `nb` group blocks.
pub(super) type GroupFn<A, const C: usize> =
    unsafe fn(*const u8, usize, [*const A; C], [*mut f32; C]);

/// Covers the tile group by group, `W` tokens at a time (then one by one); `block` columns
/// per group block.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
pub(super) unsafe fn tile_x8<A, const W: usize>(
    t: &Tile,
    block: usize,
    wide: GroupFn<A, W>,
    one: GroupFn<A, 1>,
) {
    let nb = t.k / block;
    let group_bytes = GROUP * t.w_stride;
    // The kernels prefetch ahead of themselves; start the tile's first bytes now.
    prefetch::<{ PREFETCH / 64 }>(t.w);
    // SAFETY: groups and tokens below stay inside the tile.
    unsafe {
        let act = |c: usize| t.a.add(c * t.a_stride).cast::<A>();
        for g in 0..t.nrows / GROUP {
            let gp = t.w.add(g * group_bytes);
            let out = |c: usize| t.out.add(c * t.out_stride + g * GROUP);
            let mut c = 0;
            while c + W <= t.ntok {
                wide(
                    gp,
                    nb,
                    std::array::from_fn(|i| act(c + i)),
                    std::array::from_fn(|i| out(c + i)),
                );
                c += W;
            }
            while c < t.ntok {
                one(gp, nb, [act(c)], [out(c)]);
                c += 1;
            }
        }
    }
}

/// The tile entry `$name` for group kernel `$kernel` (with further generic arguments `$arg`:
/// a format flag, a product step) over activations `$act` in blocks of `$block` columns, `$w`
/// tokens at a time, compiled for target features `$feat` (which the CPU must have).
macro_rules! entry {
    ($name:ident, $inner:ident, $feat:literal, $w:literal, $act:ty, $block:expr, $kernel:ident $(, $arg:tt)*) => {
        /// # Safety
        /// See [`crate::tile::TileFn`]; the CPU must support the target features above.
        pub(crate) unsafe fn $name(t: &Tile) {
            // SAFETY: forwarded from the caller.
            unsafe { $inner(t) }
        }

        #[target_feature(enable = $feat)]
        unsafe fn $inner(t: &Tile) {
            #[target_feature(enable = $feat)]
            unsafe fn wide(g: *const u8, nb: usize, a: [*const $act; $w], o: [*mut f32; $w]) {
                // SAFETY: forwarded.
                unsafe { $kernel::<$w $(, $arg)*>(g, nb, a, o) }
            }
            #[target_feature(enable = $feat)]
            unsafe fn one(g: *const u8, nb: usize, a: [*const $act; 1], o: [*mut f32; 1]) {
                // SAFETY: forwarded.
                unsafe { $kernel::<1 $(, $arg)*>(g, nb, a, o) }
            }
            // SAFETY: forwarded.
            unsafe { tile_x8(t, $block, wide, one) }
        }
    };
}
pub(super) use entry;

entry!(
    tile_q4_1x8,
    tile_q4_1x8_avx2,
    "avx2,fma,f16c",
    4,
    BlockQ8A,
    32,
    qmx8,
    false
);
entry!(
    tile_q5_1x8,
    tile_q5_1x8_avx2,
    "avx2,fma,f16c",
    4,
    BlockQ8A,
    32,
    qmx8,
    true
);
entry!(
    tile_q8_0x8,
    tile_q8_0x8_avx2,
    "avx2,fma,f16c",
    4,
    BlockQ8A,
    32,
    q8_0x8
);
entry!(
    tile_q4_0x8,
    tile_q4_0x8_avx2,
    "avx2,fma,f16c",
    4,
    BlockQ8A,
    32,
    qsx8,
    false
);
entry!(
    tile_q5_0x8,
    tile_q5_0x8_avx2,
    "avx2,fma,f16c",
    4,
    BlockQ8A,
    32,
    qsx8,
    true
);
