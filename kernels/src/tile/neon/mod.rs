//! aarch64 NEON tiles (with the `sdot` dot-product extension where the CPU has it), selected
//! at run time. Each has a scalar twin in `tile::scalar` and a parity test in `tile::tests`
//! (run under qemu-aarch64 on x86 hosts). Formats without a NEON tile use the scalar one.

mod act;
mod float;
mod q32;
mod x8;
mod x8k;

use super::{ActQuant, TileFn};
use crate::DType;
use crate::repack::Layout;

pub(crate) const ACT_QUANT: ActQuant = ActQuant {
    q8a: act::quantize_q8a,
    q8k: crate::quant::quantize_q8k,
};

/// The NEON tile for `dtype` in `layout`; `dot` says whether `sdot` may be used.
pub(crate) fn tile_fn(dtype: DType, layout: Layout, dot: bool) -> Option<TileFn> {
    match (layout, dtype, dot) {
        (Layout::X8, DType::Q4_0, true) => Some(x8::tile_q4_0x8_dot),
        (Layout::X8, DType::Q4_1, true) => Some(x8::tile_q4_1x8_dot),
        (Layout::X8, DType::Q5_0, true) => Some(x8::tile_q5_0x8_dot),
        (Layout::X8, DType::Q5_1, true) => Some(x8::tile_q5_1x8_dot),
        (Layout::X8, DType::Q4_K, true) => Some(x8k::tile_q4_kx8_dot),
        (Layout::X8, DType::Q5_K, true) => Some(x8k::tile_q5_kx8_dot),
        (Layout::X8, DType::Q6_K, true) => Some(x8k::tile_q6_kx8_dot),
        (Layout::X8, DType::Q8_0, true) => Some(x8::tile_q8_0x8_dot),
        (Layout::X8, _, _) => None,
        (Layout::Rows, DType::F32, _) => Some(float::tile_f32),
        (Layout::Rows, DType::BF16, _) => Some(float::tile_bf16),
        (Layout::Rows, DType::Q4_0, true) => Some(q32::tile_q4_0_dot),
        (Layout::Rows, DType::Q4_1, true) => Some(q32::tile_q4_1_dot),
        (Layout::Rows, DType::Q5_0, true) => Some(q32::tile_q5_0_dot),
        (Layout::Rows, DType::Q8_0, true) => Some(q32::tile_q8_0_dot),
        (Layout::Rows, DType::Q4_0, false) => Some(q32::tile_q4_0),
        (Layout::Rows, DType::Q4_1, false) => Some(q32::tile_q4_1),
        (Layout::Rows, DType::Q5_0, false) => Some(q32::tile_q5_0),
        (Layout::Rows, DType::Q8_0, false) => Some(q32::tile_q8_0),
        _ => None,
    }
}

/// `acc[i] += Σ_j a[4i+j] * b[4i+j]` (the `sdot` instruction; its intrinsic is not stable
/// in Rust yet, so it is emitted with inline assembly).
///
/// # Safety
/// The CPU must have the dot-product extension.
#[inline(always)]
unsafe fn sdot(
    acc: std::arch::aarch64::int32x4_t,
    a: std::arch::aarch64::int8x16_t,
    b: std::arch::aarch64::int8x16_t,
) -> std::arch::aarch64::int32x4_t {
    let mut r = acc;
    // SAFETY: register-only instruction; the caller guarantees the CPU supports it.
    unsafe {
        std::arch::asm!(
            ".arch_extension dotprod",
            "sdot {r:v}.4s, {a:v}.16b, {b:v}.16b",
            r = inout(vreg) r,
            a = in(vreg) a,
            b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    r
}

/// Reads an f16 scale (raw little-endian bits at `p`) as f32.
///
/// # Safety
/// `p` must be valid for 2 bytes.
#[inline(always)]
unsafe fn f16_at(p: *const u8) -> f32 {
    // SAFETY: guaranteed by the caller.
    half::f16::from_bits(unsafe { std::ptr::read_unaligned(p.cast::<u16>()) }).to_f32()
}
