//! The VNNI product step of the interleaved Q4_Kx8, Q5_Kx8 and Q6_Kx8 tiles: `x8k`'s loops
//! with [`Dpbusd`]. `vpdpbusd` sums each sub-block's products straight into 32-bit lanes
//! (rows), which meet the rows' scales in one 32-bit multiply. Exact integer sums, as GGML's. The
//! instruction has two encodings ([`Dot`]): AVX-512 VNNI's (EVEX) and AVX-VNNI's (VEX, the
//! Intel cores without AVX-512); `vnni` compiles the tiles once for each.

use std::arch::x86_64::*;

use super::kstep::KStep;

/// One encoding of `vpdpbusd` on 256-bit registers: `acc` plus, per 32-bit lane, the four
/// products of unsigned bytes of `w` and signed bytes of `x`.
///
/// # Safety
/// Call only from code compiled for (and running on a CPU with) the encoding's features.
pub(super) trait Dot {
    unsafe fn dpbusd(acc: __m256i, w: __m256i, x: __m256i) -> __m256i;
}

/// AVX-512 VNNI + VL (EVEX): 32 registers.
pub(super) struct Evex;

impl Dot for Evex {
    #[inline(always)]
    unsafe fn dpbusd(acc: __m256i, w: __m256i, x: __m256i) -> __m256i {
        // SAFETY: AVX-512 VNNI + VL, guaranteed by the caller.
        unsafe { _mm256_dpbusd_epi32(acc, w, x) }
    }
}

/// AVX-VNNI (VEX): the same operation with AVX2's 16 registers.
pub(super) struct Vex;

impl Dot for Vex {
    #[inline(always)]
    unsafe fn dpbusd(acc: __m256i, w: __m256i, x: __m256i) -> __m256i {
        // SAFETY: AVX-VNNI, guaranteed by the caller.
        unsafe { _mm256_dpbusd_avx_epi32(acc, w, x) }
    }
}

/// VNNI (256-bit registers, either encoding): `vpdpbusd` into 32-bit partial sums, scales as
/// 32-bit lanes for `vpmulld`.
pub(super) struct Dpbusd<D>(std::marker::PhantomData<D>);

impl<D: Dot> KStep for Dpbusd<D> {
    const WIDE: bool = true;
    const Q6_RUN: usize = 4;

    #[inline(always)]
    unsafe fn rows_u8(x: __m128i) -> (__m256i, __m256i) {
        // SAFETY: AVX2, guaranteed by the caller.
        unsafe {
            (
                _mm256_cvtepu8_epi32(x),
                _mm256_cvtepu8_epi32(_mm_srli_si128(x, 8)),
            )
        }
    }

    #[inline(always)]
    unsafe fn rows_i8(x: __m128i) -> __m256i {
        // SAFETY: AVX2, guaranteed by the caller.
        unsafe { _mm256_cvtepi8_epi32(x) }
    }

    #[inline(always)]
    unsafe fn step(acc: __m256i, w: __m256i, x: __m256i) -> __m256i {
        // SAFETY: the encoding's features, guaranteed by the caller.
        unsafe { D::dpbusd(acc, w, x) }
    }

    #[inline(always)]
    unsafe fn scaled(p: __m256i, sc: __m256i) -> __m256i {
        // SAFETY: AVX2, guaranteed by the caller.
        unsafe { _mm256_mullo_epi32(p, sc) }
    }
}
