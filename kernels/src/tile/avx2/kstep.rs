//! The product step the K-quant x8 loops of `x8k` are generic over: how 4 weight bytes of
//! each of 8 rows meet 4 broadcast activation bytes, and how a sub-block's sums meet its rows'
//! scales. [`Maddubs`] (AVX2) pairs products in 16 bits and widens with one `madd` per flush;
//! `vnni_k::Dpbusd` (AVX-512 VNNI) adds them straight into 32-bit lanes. The steps are
//! `#[inline(always)]` without target features of their own: their instructions end up in
//! the tile that runs the loop, under its features (the `entry!` functions).

use std::arch::x86_64::*;

/// A product step of the K-quant x8 loops. Lanes are rows throughout.
///
/// # Safety
/// Every method runs this step's instructions: call them only from code compiled for (and
/// running on a CPU with) its target features.
pub(super) trait KStep {
    /// Partial sums are 32-bit: Q5_K's sub-blocks need no early flush.
    const WIDE: bool;
    /// Q6_K's partial sums meet their scales every this many steps (of 4 weights per row):
    /// its unsigned 6-bit weights (0..63) fill 16-bit sums after two steps.
    const Q6_RUN: usize;

    /// 16 unsigned per-row scales (row r at byte r of each half of `x`) in the form
    /// [`KStep::scaled`] takes: (the low 8 bytes, the high 8 bytes).
    unsafe fn rows_u8(x: __m128i) -> (__m256i, __m256i);
    /// The same for 8 signed scales, the low 8 bytes of `x`.
    unsafe fn rows_i8(x: __m128i) -> __m256i;
    /// `acc` plus the products of unsigned weight bytes `w` and signed activation bytes `x`.
    unsafe fn step(acc: __m256i, w: __m256i, x: __m256i) -> __m256i;
    /// Partial sums `p` times the rows' scales `sc`, as 32-bit lanes.
    unsafe fn scaled(p: __m256i, sc: __m256i) -> __m256i;
}

/// AVX2: `maddubs` pairs summed in 16 bits (flushed before they can overflow), scales
/// duplicated into both 16-bit halves of a row's lane for `madd`.
pub(super) struct Maddubs;

impl KStep for Maddubs {
    const WIDE: bool = false;
    const Q6_RUN: usize = 2;

    #[inline(always)]
    unsafe fn rows_u8(x: __m128i) -> (__m256i, __m256i) {
        // SAFETY: AVX2, guaranteed by the caller.
        unsafe {
            (
                _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(x, x)),
                _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(x, x)),
            )
        }
    }

    #[inline(always)]
    unsafe fn rows_i8(x: __m128i) -> __m256i {
        // SAFETY: AVX2, guaranteed by the caller.
        unsafe { _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x, x)) }
    }

    #[inline(always)]
    unsafe fn step(acc: __m256i, w: __m256i, x: __m256i) -> __m256i {
        // SAFETY: AVX2, guaranteed by the caller.
        unsafe { _mm256_add_epi16(acc, _mm256_maddubs_epi16(w, x)) }
    }

    #[inline(always)]
    unsafe fn scaled(p: __m256i, sc: __m256i) -> __m256i {
        // SAFETY: AVX2, guaranteed by the caller.
        unsafe { _mm256_madd_epi16(p, sc) }
    }
}
