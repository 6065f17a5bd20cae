//! VNNI versions of the interleaved x8 tiles ([`crate::Isa::Avx512Vnni`], and in AVX-VNNI's
//! encoding [`crate::Isa::AvxVnni`]): the same
//! layouts and lanes-are-rows scheme as `x8`, but `vpdpbusd` multiplies unsigned weight bytes
//! by 4 broadcast signed activations and adds the products straight into 32-bit lanes: no
//! 16-bit partial sums, no `madd`, and the broadcast folds into the instruction. The
//! zero-offset formats keep their weights unsigned (Q8_0's are made so by adding 128) and
//! take the offset off with the activations' exact sums, `Σ(q - z)x = Σqx - z·Σx`: exact
//! integer sums, as GGML's. 256-bit registers only (no 512-bit frequency penalty). Each tile
//! is compiled twice (`family!`): for AVX-512 VNNI (EVEX, 32 registers, 8 tokens at a time)
//! and for AVX-VNNI (VEX, 16 registers, 4 tokens at a time, as the AVX2 tiles).

use std::arch::x86_64::*;

use super::vnni_k::Dot;
use super::x8::{PREFETCH, bcast, prefetch};
use crate::DType;
use crate::quant::BlockQ8A;
use crate::repack::Layout;
use crate::tile::TileFn;

/// The AVX-512 VNNI tile for `dtype` in `layout`, if there is one (else the AVX2 one applies).
pub(crate) fn tile_fn(dtype: DType, layout: Layout) -> Option<TileFn> {
    evex::tile_fn(dtype, layout)
}

/// The AVX-VNNI tile for `dtype` in `layout`, if there is one (else the AVX2 one applies).
pub(crate) fn tile_fn_vex(dtype: DType, layout: Layout) -> Option<TileFn> {
    vex::tile_fn(dtype, layout)
}

const Q4_0: u8 = 0;
const Q4_1: u8 = 1;
const Q5_0: u8 = 2;
const Q8_0: u8 = 3;
const Q5_1: u8 = 4;

/// C tokens x one 8-row group of a 32-element x8 format `F`, products by encoding `D`:
/// `out[c][0..8]`.
///
/// # Safety
/// As for a group kernel (`x8::GroupFn`), and only called from an `entry!` tile compiled for
/// `D`'s target features (its instructions are inlined there).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn q32x8<const C: usize, const F: u8, D: Dot>(
    g: *const u8,
    nb: usize,
    a: [*const BlockQ8A; C],
    out: [*mut f32; C],
) {
    // Group block bytes, offset of the quants, zero offset of the weights as multiplied
    // (the fifth bits of Q5_0 / Q5_1 sit in the 32 bytes before the quants; the minimum of
    // Q4_1 / Q5_1 in the 16 bytes after the scales).
    let (bytes, quants, z) = match F {
        Q4_0 => (144, 16, 8),
        Q4_1 => (160, 32, 0),
        Q5_0 => (176, 48, 16),
        Q5_1 => (192, 64, 0),
        _ => (272, 16, 128),
    };
    let five = F == Q5_0 || F == Q5_1;
    let mask = _mm256_set1_epi8(0x0F);
    let bit4 = _mm256_set1_epi8(0x10);
    let flip = _mm256_set1_epi8(-128);
    let mut acc = [_mm256_setzero_ps(); C];
    // SAFETY: the caller guarantees nb group blocks at `g`, nb activation blocks per token
    // and 8 writable floats per output pointer.
    unsafe {
        for b in 0..nb {
            let blk = g.add(b * bytes);
            if F == Q8_0 {
                prefetch::<5>(blk.wrapping_add(PREFETCH));
            } else {
                prefetch::<3>(blk.wrapping_add(PREFETCH));
            }
            let x: [&BlockQ8A; C] = std::array::from_fn(|c| &*a[c].add(b));
            let mut s = [_mm256_setzero_si256(); C];
            if F == Q8_0 {
                for u in 0..8 {
                    let w = _mm256_xor_si256(_mm256_loadu_si256(blk.add(16 + 32 * u).cast()), flip);
                    for c in 0..C {
                        s[c] = D::dpbusd(s[c], w, bcast(x[c], u));
                    }
                }
            } else {
                // The fifth bits, as in `x8::qsx8`.
                let qh = if five {
                    _mm256_loadu_si256(blk.add(quants - 32).cast())
                } else {
                    _mm256_setzero_si256()
                };
                let (mut hlo, mut hhi) = (_mm256_slli_epi16(qh, 4), qh);
                for u in 0..4 {
                    let q = _mm256_loadu_si256(blk.add(quants + 32 * u).cast());
                    let mut lo = _mm256_and_si256(q, mask);
                    let mut hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), mask);
                    if five {
                        lo = _mm256_or_si256(lo, _mm256_and_si256(hlo, bit4));
                        hi = _mm256_or_si256(hi, _mm256_and_si256(hhi, bit4));
                        hlo = _mm256_srli_epi16(hlo, 1);
                        hhi = _mm256_srli_epi16(hhi, 1);
                    }
                    for c in 0..C {
                        s[c] = D::dpbusd(s[c], lo, bcast(x[c], u));
                        s[c] = D::dpbusd(s[c], hi, bcast(x[c], 4 + u));
                    }
                }
            }
            let d = _mm256_cvtph_ps(_mm_loadu_si128(blk.cast()));
            for c in 0..C {
                let si = if z != 0 {
                    _mm256_sub_epi32(s[c], _mm256_set1_epi32(z * x[c].sum))
                } else {
                    s[c]
                };
                let sf = _mm256_cvtepi32_ps(si);
                acc[c] = _mm256_fmadd_ps(sf, _mm256_mul_ps(d, _mm256_set1_ps(x[c].d)), acc[c]);
                if F == Q4_1 || F == Q5_1 {
                    let m = _mm256_cvtph_ps(_mm_loadu_si128(blk.add(16).cast()));
                    acc[c] = _mm256_fmadd_ps(m, _mm256_set1_ps(x[c].s), acc[c]);
                }
            }
        }
        for c in 0..C {
            _mm256_storeu_ps(out[c], acc[c]);
        }
    }
}

/// Module `$module`: the VNNI tiles compiled for target features `$feat`, products by
/// encoding `$dot`, `$w` tokens at a time, and its `tile_fn`.
macro_rules! family {
    ($module:ident, $feat:literal, $dot:ident, $w:literal) => {
        pub(super) mod $module {
            use super::super::vnni_k::{Dpbusd, $dot};
            use super::super::x8::{entry, tile_x8};
            use super::super::x8k::{kx8, q6_kx8};
            use super::{Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, q32x8};
            use crate::DType;
            use crate::quant::{BlockQ8A, BlockQ8K};
            use crate::repack::Layout;
            use crate::tile::{Tile, TileFn};

            /// The K-quant loops' product step.
            type Step = Dpbusd<$dot>;

            pub(super) fn tile_fn(dtype: DType, layout: Layout) -> Option<TileFn> {
                if layout != Layout::X8 {
                    return None;
                }
                match dtype {
                    DType::Q4_0 => Some(tile_q4_0x8),
                    DType::Q4_1 => Some(tile_q4_1x8),
                    DType::Q5_0 => Some(tile_q5_0x8),
                    DType::Q5_1 => Some(tile_q5_1x8),
                    DType::Q8_0 => Some(tile_q8_0x8),
                    DType::Q4_K => Some(tile_q4_kx8),
                    DType::Q5_K => Some(tile_q5_kx8),
                    DType::Q6_K => Some(tile_q6_kx8),
                    _ => None,
                }
            }

            entry!(
                tile_q4_0x8,
                q4_0x8,
                $feat,
                $w,
                BlockQ8A,
                32,
                q32x8,
                Q4_0,
                $dot
            );
            entry!(
                tile_q4_1x8,
                q4_1x8,
                $feat,
                $w,
                BlockQ8A,
                32,
                q32x8,
                Q4_1,
                $dot
            );
            entry!(
                tile_q5_0x8,
                q5_0x8,
                $feat,
                $w,
                BlockQ8A,
                32,
                q32x8,
                Q5_0,
                $dot
            );
            entry!(
                tile_q5_1x8,
                q5_1x8,
                $feat,
                $w,
                BlockQ8A,
                32,
                q32x8,
                Q5_1,
                $dot
            );
            entry!(
                tile_q8_0x8,
                q8_0x8,
                $feat,
                $w,
                BlockQ8A,
                32,
                q32x8,
                Q8_0,
                $dot
            );
            entry!(
                tile_q4_kx8,
                q4_kx8,
                $feat,
                4,
                BlockQ8K,
                256,
                kx8,
                false,
                Step
            );
            entry!(
                tile_q5_kx8,
                q5_kx8,
                $feat,
                4,
                BlockQ8K,
                256,
                kx8,
                true,
                Step
            );
            entry!(
                tile_q6_kx8,
                q6_kx8_tile,
                $feat,
                $w,
                BlockQ8K,
                256,
                q6_kx8,
                Step
            );
        }
    };
}

family!(
    evex,
    "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni",
    Evex,
    8
);
family!(vex, "avx2,fma,f16c,avxvnni", Vex, 4);
