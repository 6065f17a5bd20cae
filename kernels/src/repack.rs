//! Interleaved ("x8") weight layouts: 8 consecutive rows stored block by block, so one SIMD
//! register holds the same 4 input positions of 8 rows and integer dot products produce one
//! lane per output row (no horizontal sums, one scale multiply per 8 rows). Built once at
//! model load from GGML's row-major blocks; same byte size as the original.
//!
//! Q4_1x8 group block (160 bytes, one 32-column block of 8 rows):
//! `d: [f16; 8]`, `m: [f16; 8]`, then 4 chunks of 32 bytes; chunk `u` holds, for row
//! `r = 0..8`, the original `qs[4u .. 4u+4]` of row `r` at bytes `4r .. 4r+4` (low nibbles:
//! elements `4u..4u+4`, high nibbles: elements `16+4u .. 16+4u+4`).

use crate::quant::BlockQ4_1;
use crate::{DType, KernelError};

/// Rows per interleaved group.
pub const GROUP: usize = 8;

/// How a weight matrix's bytes are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// GGML's layout: each row a run of blocks (as stored in GGUF files).
    Rows,
    /// Interleaved groups of 8 rows (see the module docs); `rows % 8 == 0`.
    X8,
}

/// Whether `dtype` has an interleaved layout (and kernels for it).
pub const fn has_x8(dtype: DType) -> bool {
    matches!(dtype, DType::Q4_1)
}

/// Owned, 64-byte-aligned bytes of a repacked matrix.
pub struct PackedBytes {
    buf: Vec<Align64>,
    len: usize,
}

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Align64([u8; 64]);

impl PackedBytes {
    fn zeroed(len: usize) -> PackedBytes {
        PackedBytes {
            buf: vec![Align64([0; 64]); len.div_ceil(64)],
            len,
        }
    }
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `buf` holds at least `len` initialized bytes.
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr().cast::<u8>(), self.len) }
    }
    fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.buf.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

impl std::fmt::Debug for PackedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PackedBytes({} bytes)", self.len)
    }
}

/// Repacks a row-major `rows x cols` matrix of `dtype` into the x8 layout.
pub fn repack_x8(
    dtype: DType,
    rows: usize,
    cols: usize,
    data: &[u8],
) -> Result<PackedBytes, KernelError> {
    if !has_x8(dtype) || !rows.is_multiple_of(GROUP) {
        return Err(KernelError::Unsupported(dtype));
    }
    let expected = dtype
        .matrix_bytes(rows, cols)
        .ok_or(KernelError::RaggedRow {
            dtype,
            block: dtype.block_len(),
            cols,
        })?;
    if data.len() != expected {
        return Err(KernelError::WeightSize {
            dtype,
            rows,
            cols,
            expected,
            actual: data.len(),
        });
    }
    let mut out = PackedBytes::zeroed(expected);
    let row_bytes = expected / rows;
    let nb = cols / 32;
    let dst = out.as_mut_slice();
    for g in 0..rows / GROUP {
        for b in 0..nb {
            let o = &mut dst[(g * nb + b) * 160..(g * nb + b + 1) * 160];
            for r in 0..GROUP {
                let src = &data[(g * GROUP + r) * row_bytes + b * 20..][..20];
                o[2 * r..2 * r + 2].copy_from_slice(&src[0..2]);
                o[16 + 2 * r..16 + 2 * r + 2].copy_from_slice(&src[2..4]);
                for u in 0..4 {
                    o[32 + 32 * u + 4 * r..32 + 32 * u + 4 * r + 4]
                        .copy_from_slice(&src[4 + 4 * u..8 + 4 * u]);
                }
            }
        }
    }
    Ok(out)
}

/// Block `b` of row `r` (0..8) of a Q4_1x8 group block, back in GGML's form.
pub(crate) fn q4_1x8_block(group_block: &[u8], r: usize) -> BlockQ4_1 {
    let h = |o: usize| half::f16::from_le_bytes([group_block[o], group_block[o + 1]]);
    let mut qs = [0u8; 16];
    for u in 0..4 {
        qs[4 * u..4 * u + 4]
            .copy_from_slice(&group_block[32 + 32 * u + 4 * r..32 + 32 * u + 4 * r + 4]);
    }
    BlockQ4_1 {
        d: h(2 * r),
        m: h(16 + 2 * r),
        qs,
    }
}

/// Row `r` of an x8 matrix as f32 (embedding lookups), without allocating.
pub(crate) fn dequantize_row_x8(dtype: DType, cols: usize, data: &[u8], r: usize, out: &mut [f32]) {
    debug_assert!(has_x8(dtype));
    let nb = cols / 32;
    let (g, rr) = (r / GROUP, r % GROUP);
    for (b, o) in out.chunks_exact_mut(32).enumerate().take(nb) {
        let gb = &data[(g * nb + b) * 160..(g * nb + b + 1) * 160];
        crate::quant::QuantBlock::dequantize(&q4_1x8_block(gb, rr), o);
    }
}

/// Row `r` of an x8 matrix back in GGML's row-major bytes.
pub(crate) fn unpack_row_x8(dtype: DType, cols: usize, data: &[u8], r: usize, out: &mut [u8]) {
    debug_assert!(has_x8(dtype));
    let nb = cols / 32;
    let (g, rr) = (r / GROUP, r % GROUP);
    for b in 0..nb {
        let gb = &data[(g * nb + b) * 160..(g * nb + b + 1) * 160];
        let blk = q4_1x8_block(gb, rr);
        out[b * 20..b * 20 + 20]
            .copy_from_slice(crate::quant::block_bytes(std::slice::from_ref(&blk)));
    }
}
