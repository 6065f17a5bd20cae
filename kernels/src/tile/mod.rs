//! Matmul tiles: the inner kernels that compute `out[t][r] = dot(W row r, activations t)` for
//! a block of rows and tokens, one implementation per weight format and instruction set.
//! `scalar` is the reference every SIMD tile is tested against.

pub(crate) mod scalar;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;

#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;

#[cfg(test)]
mod tests;

use crate::repack::Layout;
use crate::{ActKind, DType, Isa};

/// One tile of work, with raw pointers because threads write disjoint parts of one output.
/// Row `r` of the weights starts at `w + r * w_stride`; token `t`'s prepared activations at
/// `a + t * a_stride` (f32 values, [`crate::quant::BlockQ8A`] or [`crate::quant::BlockQ8K`]
/// blocks, as the format's [`ActKind`] says); `k` is the row length in elements; the result
/// for (row r, token t) goes to `out + t * out_stride + r`. For [`Layout::X8`] kernels `w` is
/// the first 8-row group, a group spans `8 * w_stride` bytes and `nrows` is a multiple of 8.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tile {
    pub dtype: DType,
    pub w: *const u8,
    pub w_stride: usize,
    pub nrows: usize,
    pub a: *const u8,
    pub a_stride: usize,
    pub ntok: usize,
    pub k: usize,
    pub out: *mut f32,
    pub out_stride: usize,
}

/// A tile kernel.
///
/// # Safety
/// Every pointer of the [`Tile`] must be valid for the extent it describes, and the weight
/// and activation formats must be those the kernel was selected for.
pub(crate) type TileFn = unsafe fn(&Tile);

/// Activation preparation kernels (f32 -> 8-bit blocks) for one instruction set.
#[derive(Clone, Copy)]
pub(crate) struct ActQuant {
    pub q8a: fn(&[f32], &mut [crate::quant::BlockQ8A]),
    pub q8k: fn(&[f32], &mut [crate::quant::BlockQ8K]),
}

/// The tile kernel for `dtype` on `isa` (falls back to scalar where a SIMD one is missing).
pub(crate) fn tile_fn(isa: Isa, dtype: DType, layout: Layout) -> TileFn {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => avx2::tile_fn(dtype, layout).unwrap_or_else(|| scalar::tile_fn(dtype, layout)),
        #[cfg(target_arch = "x86_64")]
        Isa::AvxVnni => avx2::vnni::tile_fn_vex(dtype, layout)
            .or_else(|| avx2::tile_fn(dtype, layout))
            .unwrap_or_else(|| scalar::tile_fn(dtype, layout)),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512Vnni => avx2::vnni::tile_fn(dtype, layout)
            .or_else(|| avx2::tile_fn(dtype, layout))
            .unwrap_or_else(|| scalar::tile_fn(dtype, layout)),
        #[cfg(target_arch = "x86_64")]
        Isa::Amx => avx2::amx::tile_fn(dtype, layout)
            .or_else(|| avx2::vnni::tile_fn(dtype, layout))
            .or_else(|| avx2::tile_fn(dtype, layout))
            .unwrap_or_else(|| scalar::tile_fn(dtype, layout)),
        #[cfg(target_arch = "aarch64")]
        Isa::Neon | Isa::NeonDot => neon::tile_fn(dtype, layout, isa == Isa::NeonDot)
            .unwrap_or_else(|| scalar::tile_fn(dtype, layout)),
        _ => scalar::tile_fn(dtype, layout),
    }
}

/// Whether `isa` has a SIMD kernel for `dtype` in the interleaved layout (only then does
/// repacking pay).
pub(crate) fn has_x8_kernel(isa: Isa, dtype: DType) -> bool {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::AvxVnni | Isa::Avx512Vnni | Isa::Amx => {
            avx2::tile_fn(dtype, Layout::X8).is_some()
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon | Isa::NeonDot => neon::tile_fn(dtype, Layout::X8, isa == Isa::NeonDot).is_some(),
        _ => false,
    }
}

/// The activation quantizers of `isa`.
pub(crate) fn act_quant(isa: Isa) -> ActQuant {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::AvxVnni | Isa::Avx512Vnni | Isa::Amx => avx2::ACT_QUANT,
        #[cfg(target_arch = "aarch64")]
        Isa::Neon | Isa::NeonDot => neon::ACT_QUANT,
        _ => scalar::ACT_QUANT,
    }
}

/// Bytes of one token's prepared activations for a row of `k` elements.
pub(crate) fn act_row_bytes(kind: ActKind, k: usize) -> usize {
    match kind {
        ActKind::F32 => 4 * k,
        ActKind::Q8A => (k / 32) * size_of::<crate::quant::BlockQ8A>(),
        ActKind::Q8K => (k / 256) * size_of::<crate::quant::BlockQ8K>(),
    }
}
