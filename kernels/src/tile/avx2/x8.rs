//! AVX2 tiles for the interleaved x8 layouts (see `crate::repack`): each `maddubs` multiplies
//! 4 inputs of 8 rows at once against 4 broadcast activations, 8 of them summed in 16 bits,
//! one `madd` to 32 bits per block: one lane per row, one scale FMA per 8 rows.

use std::arch::x86_64::*;

use crate::quant::BlockQ8A;
use crate::repack::GROUP;
use crate::tile::Tile;

/// C tokens x one 8-row Q4_1x8 group: `out[c][0..8]`.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q4_1x8<const C: usize>(
    g: *const u8,
    nb: usize,
    a: [*const BlockQ8A; C],
    out: [*mut f32; C],
) {
    let mask = _mm256_set1_epi8(0x0F);
    let ones = _mm256_set1_epi16(1);
    let mut acc = [_mm256_setzero_ps(); C];
    // SAFETY: the caller guarantees nb group blocks at `g`, nb activation blocks per token and
    // 8 writable floats per output pointer.
    unsafe {
        for b in 0..nb {
            let blk = g.add(b * 160);
            let d = _mm256_cvtph_ps(_mm_loadu_si128(blk.cast()));
            let m = _mm256_cvtph_ps(_mm_loadu_si128(blk.add(16).cast()));
            let mut lo = [_mm256_setzero_si256(); 4];
            let mut hi = [_mm256_setzero_si256(); 4];
            for u in 0..4 {
                let q = _mm256_loadu_si256(blk.add(32 + 32 * u).cast());
                lo[u] = _mm256_and_si256(q, mask);
                hi[u] = _mm256_and_si256(_mm256_srli_epi16(q, 4), mask);
            }
            for c in 0..C {
                let x = &*a[c].add(b);
                let xp = x.qs.as_ptr().cast::<i32>();
                let bc = |i: usize| _mm256_set1_epi32(std::ptr::read_unaligned(xp.add(i)));
                let mut p = _mm256_maddubs_epi16(lo[0], bc(0));
                p = _mm256_add_epi16(p, _mm256_maddubs_epi16(lo[1], bc(1)));
                p = _mm256_add_epi16(p, _mm256_maddubs_epi16(lo[2], bc(2)));
                p = _mm256_add_epi16(p, _mm256_maddubs_epi16(lo[3], bc(3)));
                p = _mm256_add_epi16(p, _mm256_maddubs_epi16(hi[0], bc(4)));
                p = _mm256_add_epi16(p, _mm256_maddubs_epi16(hi[1], bc(5)));
                p = _mm256_add_epi16(p, _mm256_maddubs_epi16(hi[2], bc(6)));
                p = _mm256_add_epi16(p, _mm256_maddubs_epi16(hi[3], bc(7)));
                let s = _mm256_cvtepi32_ps(_mm256_madd_epi16(p, ones));
                acc[c] = _mm256_fmadd_ps(s, _mm256_mul_ps(d, _mm256_set1_ps(x.d)), acc[c]);
                acc[c] = _mm256_fmadd_ps(m, _mm256_set1_ps(x.s), acc[c]);
            }
        }
        for c in 0..C {
            _mm256_storeu_ps(out[c], acc[c]);
        }
    }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must support AVX2, FMA and F16C.
pub(crate) unsafe fn tile_q4_1x8(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile_q4_1x8_avx2(t) }
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn tile_q4_1x8_avx2(t: &Tile) {
    let nb = t.k / 32;
    let group_bytes = GROUP * t.w_stride;
    // SAFETY: groups and tokens below stay inside the tile.
    unsafe {
        for g in 0..t.nrows / GROUP {
            let gp = t.w.add(g * group_bytes);
            let act = |c: usize| t.a.add(c * t.a_stride).cast::<BlockQ8A>();
            let out = |c: usize| t.out.add(c * t.out_stride + g * GROUP);
            let mut c = 0;
            while c + 4 <= t.ntok {
                q4_1x8::<4>(
                    gp,
                    nb,
                    [act(c), act(c + 1), act(c + 2), act(c + 3)],
                    [out(c), out(c + 1), out(c + 2), out(c + 3)],
                );
                c += 4;
            }
            while c < t.ntok {
                q4_1x8::<1>(gp, nb, [act(c)], [out(c)]);
                c += 1;
            }
        }
    }
}
