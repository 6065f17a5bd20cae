//! AVX2 + FMA + F16C tiles (x86-64), selected at run time, and (`vnni`) the VNNI versions
//! of the interleaved ones, in AVX-512 VNNI's and AVX-VNNI's encodings. Each has a scalar twin in `tile::scalar` and a parity
//! test in `tile::tests`.

mod act;
pub(crate) mod amx;
mod float;
mod kquant;
mod kstep;
mod q32;
pub(crate) mod vnni;
mod vnni_k;
mod x8;
mod x8k;

use std::arch::x86_64::*;

use super::{ActQuant, TileFn};
use crate::DType;
use crate::repack::Layout;

pub(crate) const ACT_QUANT: ActQuant = ActQuant {
    q8a: act::quantize_q8a,
    q8k: act::quantize_q8k,
};

/// The AVX2 tile for `dtype` in `layout`, if there is one. Only call the result after checking the CPU (see `Isa`).
pub(crate) fn tile_fn(dtype: DType, layout: Layout) -> Option<TileFn> {
    if layout == Layout::X8 {
        return match dtype {
            DType::Q4_0 => Some(x8::tile_q4_0x8),
            DType::Q4_1 => Some(x8::tile_q4_1x8),
            DType::Q5_0 => Some(x8::tile_q5_0x8),
            DType::Q5_1 => Some(x8::tile_q5_1x8),
            DType::Q4_K => Some(x8k::tile_q4_kx8),
            DType::Q5_K => Some(x8k::tile_q5_kx8),
            DType::Q6_K => Some(x8k::tile_q6_kx8),
            DType::Q8_0 => Some(x8::tile_q8_0x8),
            _ => None,
        };
    }
    // Q5_1 and Q5_K run interleaved (every matrix of 8k rows is repacked at load); the rare
    // row-major ones take the scalar tile.
    Some(match dtype {
        DType::Q5_1 | DType::Q5_K => return None,
        DType::F32 => float::tile_f32,
        DType::F16 => float::tile_f16,
        DType::BF16 => float::tile_bf16,
        DType::Q4_0 => q32::tile_q4_0,
        DType::Q4_1 => q32::tile_q4_1,
        DType::Q5_0 => q32::tile_q5_0,
        DType::Q8_0 => q32::tile_q8_0,
        DType::Q4_K => kquant::tile_q4_k,
        DType::Q6_K => kquant::tile_q6_k,
    })
}

/// Sum of the 8 lanes.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn hsum(v: __m256) -> f32 {
    let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_movehdup_ps(s));
    _mm_cvtss_f32(s)
}

/// One f16 (raw bits) to f32.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn f16_to_f32(bits: u16) -> f32 {
    _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(i32::from(bits))))
}

/// Reads an unaligned little-endian u16 (an f16 scale inside a block).
///
/// # Safety
/// `p` must be valid for 2 bytes.
#[inline]
unsafe fn read_u16(p: *const u8) -> u16 {
    // SAFETY: guaranteed by the caller.
    unsafe { std::ptr::read_unaligned(p.cast::<u16>()) }
}
