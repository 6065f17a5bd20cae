//! Tensor element formats (the GGML type ids GGUF files use) and their block geometry.

/// A tensor element format. Quantized formats store `block_len()` elements in
/// `block_bytes()` bytes; rows are whole numbers of blocks.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    F16,
    BF16,
    Q8_0,
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q4_K,
    Q5_K,
    Q6_K,
}

/// How activations are prepared for a weight format's dot product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActKind {
    /// Plain `f32` activations (float weight formats).
    F32,
    /// 8-bit blocks of 32 with scale and scaled sum ([`crate::quant::BlockQ8A`]).
    Q8A,
    /// 8-bit blocks of 256 with 16-element sums ([`crate::quant::BlockQ8K`]).
    Q8K,
}

impl DType {
    /// Every supported format.
    pub const ALL: [DType; 11] = [
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::Q8_0,
        DType::Q4_0,
        DType::Q4_1,
        DType::Q5_0,
        DType::Q5_1,
        DType::Q4_K,
        DType::Q5_K,
        DType::Q6_K,
    ];

    /// Elements per block.
    pub const fn block_len(self) -> usize {
        match self {
            DType::F32 | DType::F16 | DType::BF16 => 1,
            DType::Q8_0 | DType::Q4_0 | DType::Q4_1 | DType::Q5_0 | DType::Q5_1 => 32,
            DType::Q4_K | DType::Q5_K | DType::Q6_K => 256,
        }
    }

    /// Bytes per block.
    pub const fn block_bytes(self) -> usize {
        match self {
            DType::F32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::Q8_0 => 34,
            DType::Q4_0 => 18,
            DType::Q4_1 => 20,
            DType::Q5_0 => 22,
            DType::Q5_1 => 24,
            DType::Q4_K => 144,
            DType::Q5_K => 176,
            DType::Q6_K => 210,
        }
    }

    /// The GGML type id used in GGUF tensor infos.
    pub const fn ggml_id(self) -> u32 {
        match self {
            DType::F32 => 0,
            DType::F16 => 1,
            DType::Q4_0 => 2,
            DType::Q4_1 => 3,
            DType::Q5_0 => 6,
            DType::Q5_1 => 7,
            DType::Q8_0 => 8,
            DType::Q4_K => 12,
            DType::Q5_K => 13,
            DType::Q6_K => 14,
            DType::BF16 => 30,
        }
    }

    /// The format with this GGML type id, if supported.
    pub fn from_ggml_id(id: u32) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.ggml_id() == id)
    }

    /// Lower-case name as llama.cpp prints it (`q4_1`, `f16`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::Q8_0 => "q8_0",
            DType::Q4_0 => "q4_0",
            DType::Q4_1 => "q4_1",
            DType::Q5_0 => "q5_0",
            DType::Q5_1 => "q5_1",
            DType::Q4_K => "q4_K",
            DType::Q5_K => "q5_K",
            DType::Q6_K => "q6_K",
        }
    }

    /// Bytes of one row of `cols` elements; `None` if `cols` is not a whole number of blocks
    /// or the size overflows.
    pub const fn row_bytes(self, cols: usize) -> Option<usize> {
        if !cols.is_multiple_of(self.block_len()) {
            return None;
        }
        (cols / self.block_len()).checked_mul(self.block_bytes())
    }

    /// Bytes of a `rows x cols` matrix, checked for overflow and whole blocks.
    pub const fn matrix_bytes(self, rows: usize, cols: usize) -> Option<usize> {
        match self.row_bytes(cols) {
            Some(r) => r.checked_mul(rows),
            None => None,
        }
    }

    /// The activation format this weight format's dot product consumes.
    pub const fn act_kind(self) -> ActKind {
        match self {
            DType::F32 | DType::F16 | DType::BF16 => ActKind::F32,
            DType::Q8_0 | DType::Q4_0 | DType::Q4_1 | DType::Q5_0 | DType::Q5_1 => ActKind::Q8A,
            DType::Q4_K | DType::Q5_K | DType::Q6_K => ActKind::Q8K,
        }
    }

    /// Whether the format is one of the block-quantized ones.
    pub const fn is_quantized(self) -> bool {
        self.block_len() > 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_sizes_match_ggml() {
        for d in DType::ALL {
            assert_eq!(DType::from_ggml_id(d.ggml_id()), Some(d));
        }
        assert_eq!(DType::from_ggml_id(7), Some(DType::Q5_1));
        assert_eq!(DType::from_ggml_id(11), None); // Q3_K: not supported
        assert_eq!(DType::Q5_1.row_bytes(64), Some(48));
        assert_eq!(DType::Q5_K.row_bytes(512), Some(352));
        assert_eq!(DType::Q4_1.row_bytes(576), Some(18 * 20));
        assert_eq!(DType::Q6_K.row_bytes(896), None);
        assert_eq!(DType::F16.matrix_bytes(3, 5), Some(30));
        assert_eq!(DType::Q8_0.matrix_bytes(usize::MAX, 32), None);
    }
}
