//! Block formats: `#[repr(C)]` layouts identical to GGML's, with compile-time size checks,
//! scalar reference dequantizers and quantizers, and the 8-bit activation blocks the integer
//! dot products consume. One file per format.

mod act;
mod f16;
#[cfg(test)]
mod ggml_bytes;
mod q4_0;
mod q4_1;
mod q4_k;
mod q5_0;
mod q5_1;
mod q5_k;
mod q6_k;
mod q8_0;

pub use act::{BlockQ8A, BlockQ8K, quantize_q8a, quantize_q8k};
pub use f16::{bf16_to_f32_row, f16_to_f32_row, f32_to_bf16_row, f32_to_f16_row};
pub use q4_0::BlockQ4_0;
pub use q4_1::BlockQ4_1;
pub use q4_k::BlockQ4K;
pub use q5_0::BlockQ5_0;
pub use q5_1::BlockQ5_1;
pub use q5_k::BlockQ5K;
pub use q6_k::BlockQ6K;
pub use q8_0::BlockQ8_0;

use crate::{DType, KernelError};

/// A GGML weight block: plain old data (every bit pattern is valid), `LEN` elements.
///
/// # Safety
/// Implementors must be `#[repr(C)]`, contain only integer / `f16` fields and have no padding,
/// so that any byte buffer of the right length and alignment is a valid `[Self]`.
pub unsafe trait QuantBlock: Copy + Send + Sync + 'static {
    /// The GGUF format of this block.
    const DTYPE: DType;
    /// Elements per block.
    const LEN: usize;
    /// Writes the block's `LEN` values to `out` (scalar reference).
    fn dequantize(&self, out: &mut [f32]);
}

/// A block format with a reference quantizer (`f32` -> block), as GGML's `quantize_row_*_ref`.
pub trait Quantize: QuantBlock {
    /// Quantizes exactly `LEN` values.
    fn quantize(x: &[f32]) -> Self;
}

/// Views a byte buffer as blocks, checking length and alignment.
pub fn cast_blocks<B: QuantBlock>(bytes: &[u8]) -> Option<&[B]> {
    let size = size_of::<B>();
    if !bytes.len().is_multiple_of(size)
        || !(bytes.as_ptr() as usize).is_multiple_of(align_of::<B>())
    {
        return None;
    }
    // SAFETY: length and alignment checked; `QuantBlock` guarantees every bit pattern is valid.
    Some(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<B>(), bytes.len() / size) })
}

/// The bytes of a block slice (for writers).
pub fn block_bytes<B: QuantBlock>(blocks: &[B]) -> &[u8] {
    // SAFETY: `QuantBlock` types have no padding, so every byte is initialized.
    unsafe {
        std::slice::from_raw_parts(blocks.as_ptr().cast::<u8>(), std::mem::size_of_val(blocks))
    }
}

/// Quantizes a row of `f32` into blocks of `B`.
pub fn quantize_row<B: Quantize>(x: &[f32]) -> Result<Vec<B>, KernelError> {
    if !x.len().is_multiple_of(B::LEN) {
        return Err(KernelError::RaggedRow {
            dtype: B::DTYPE,
            block: B::LEN,
            cols: x.len(),
        });
    }
    Ok(x.chunks_exact(B::LEN).map(B::quantize).collect())
}

/// Encodes `x` (a whole number of rows) in format `dtype` and returns the bytes, as a GGUF
/// writer stores them. Every format is supported; the block formats give the bytes GGML's
/// `quantize_row_*_ref` gives (what llama.cpp's quantize writes without an importance matrix).
pub fn quantize_bytes(dtype: DType, x: &[f32]) -> Result<Vec<u8>, KernelError> {
    fn blocks<B: Quantize>(x: &[f32]) -> Result<Vec<u8>, KernelError> {
        Ok(block_bytes(&quantize_row::<B>(x)?).to_vec())
    }
    match dtype {
        DType::F32 => Ok(x.iter().flat_map(|v| v.to_le_bytes()).collect()),
        DType::F16 => {
            let mut h = vec![half::f16::ZERO; x.len()];
            f32_to_f16_row(x, &mut h);
            Ok(h.iter().flat_map(|v| v.to_le_bytes()).collect())
        }
        DType::BF16 => {
            let mut h = vec![half::bf16::ZERO; x.len()];
            f32_to_bf16_row(x, &mut h);
            Ok(h.iter().flat_map(|v| v.to_le_bytes()).collect())
        }
        DType::Q8_0 => blocks::<BlockQ8_0>(x),
        DType::Q4_0 => blocks::<BlockQ4_0>(x),
        DType::Q4_1 => blocks::<BlockQ4_1>(x),
        DType::Q5_0 => blocks::<BlockQ5_0>(x),
        DType::Q5_1 => blocks::<BlockQ5_1>(x),
        DType::Q4_K => blocks::<BlockQ4K>(x),
        DType::Q5_K => blocks::<BlockQ5K>(x),
        DType::Q6_K => blocks::<BlockQ6K>(x),
    }
}

/// Dequantizes one row (`out.len()` elements) stored as `bytes` in format `dtype`
/// (scalar reference; used for embedding lookups and tests).
pub fn dequantize_row(dtype: DType, bytes: &[u8], out: &mut [f32]) -> Result<(), KernelError> {
    let expected = dtype.row_bytes(out.len()).ok_or(KernelError::RaggedRow {
        dtype,
        block: dtype.block_len(),
        cols: out.len(),
    })?;
    if bytes.len() != expected {
        return Err(KernelError::WeightSize {
            dtype,
            rows: 1,
            cols: out.len(),
            expected,
            actual: bytes.len(),
        });
    }
    fn blocks<B: QuantBlock>(bytes: &[u8], out: &mut [f32]) {
        // Blocks may sit at any address inside a file mapping: copy each one out.
        for (chunk, o) in bytes
            .chunks_exact(size_of::<B>())
            .zip(out.chunks_exact_mut(B::LEN))
        {
            // SAFETY: `chunk` has exactly size_of::<B>() bytes and every bit pattern is valid.
            let b: B = unsafe { std::ptr::read_unaligned(chunk.as_ptr().cast::<B>()) };
            b.dequantize(o);
        }
    }
    match dtype {
        DType::F32 => {
            for (c, o) in bytes.chunks_exact(4).zip(out.iter_mut()) {
                *o = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        DType::F16 => {
            for (c, o) in bytes.chunks_exact(2).zip(out.iter_mut()) {
                *o = half::f16::from_le_bytes([c[0], c[1]]).to_f32();
            }
        }
        DType::BF16 => {
            for (c, o) in bytes.chunks_exact(2).zip(out.iter_mut()) {
                *o = half::bf16::from_le_bytes([c[0], c[1]]).to_f32();
            }
        }
        DType::Q8_0 => blocks::<BlockQ8_0>(bytes, out),
        DType::Q4_0 => blocks::<BlockQ4_0>(bytes, out),
        DType::Q4_1 => blocks::<BlockQ4_1>(bytes, out),
        DType::Q5_0 => blocks::<BlockQ5_0>(bytes, out),
        DType::Q5_1 => blocks::<BlockQ5_1>(bytes, out),
        DType::Q4_K => blocks::<BlockQ4K>(bytes, out),
        DType::Q5_K => blocks::<BlockQ5K>(bytes, out),
        DType::Q6_K => blocks::<BlockQ6K>(bytes, out),
    }
    Ok(())
}

/// Rounds to nearest, ties to even, as GGML's `nearest_int` and `_mm256_round_ps` do.
#[inline]
pub(crate) fn round_even(x: f32) -> i32 {
    x.round_ties_even() as i32
}

/// GGML's `nearest_int`: rounds to nearest, ties to even, for `|x| <= 4194303` (the
/// K-quant searches stay far inside that), with one add and integer ops instead of a
/// rounding call (baseline x86-64 has no rounding instruction), so the searches vectorize.
#[inline]
pub(crate) fn nearest_int(x: f32) -> i32 {
    debug_assert!(x.abs() <= 4_194_303.0, "{x}");
    let v = x + 12_582_912.0;
    (v.to_bits() & 0x007f_ffff) as i32 - 0x0040_0000
}

#[cfg(test)]
pub(crate) mod testutil {
    /// The workspace's seeded generator (splitmix64), for test data.
    pub use pocket_stats::Rng;

    /// Largest absolute difference.
    pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_int_rounds_like_round_even() {
        let mut rng = testutil::Rng::new(3);
        for i in 0..100_000 {
            let x = match i % 3 {
                0 => rng.uniform() * 40.0,
                // Exact halves: ties go to even.
                1 => ((rng.uniform() * 1000.0) as i32) as f32 + 0.5,
                _ => rng.uniform() * 4_194_303.0,
            };
            assert_eq!(nearest_int(x), round_even(x), "{x}");
        }
    }
}
