//! ggml tensor element types as stored in GGUF: ids, block sizes and byte sizes.

use std::fmt;

/// Super-block size of the k-quants (`QK_K`).
pub const QK_K: u64 = 256;

/// A tensor element type of ggml, with its on-disk id.
///
/// Quantized types store `block_size()` elements in `type_size()` bytes; a row's element
/// count must be a multiple of the block size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum GgmlType {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2K = 10,
    Q3K = 11,
    Q4K = 12,
    Q5K = 13,
    Q6K = 14,
    Q8K = 15,
    Iq2Xxs = 16,
    Iq2Xs = 17,
    Iq3Xxs = 18,
    Iq1S = 19,
    Iq4Nl = 20,
    Iq3S = 21,
    Iq2S = 22,
    Iq4Xs = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    Iq1M = 29,
    BF16 = 30,
    Tq1_0 = 34,
    Tq2_0 = 35,
    Mxfp4 = 39,
}

impl GgmlType {
    /// Every type this reader knows, in id order.
    pub const ALL: [GgmlType; 32] = [
        GgmlType::F32,
        GgmlType::F16,
        GgmlType::Q4_0,
        GgmlType::Q4_1,
        GgmlType::Q5_0,
        GgmlType::Q5_1,
        GgmlType::Q8_0,
        GgmlType::Q8_1,
        GgmlType::Q2K,
        GgmlType::Q3K,
        GgmlType::Q4K,
        GgmlType::Q5K,
        GgmlType::Q6K,
        GgmlType::Q8K,
        GgmlType::Iq2Xxs,
        GgmlType::Iq2Xs,
        GgmlType::Iq3Xxs,
        GgmlType::Iq1S,
        GgmlType::Iq4Nl,
        GgmlType::Iq3S,
        GgmlType::Iq2S,
        GgmlType::Iq4Xs,
        GgmlType::I8,
        GgmlType::I16,
        GgmlType::I32,
        GgmlType::I64,
        GgmlType::F64,
        GgmlType::Iq1M,
        GgmlType::BF16,
        GgmlType::Tq1_0,
        GgmlType::Tq2_0,
        GgmlType::Mxfp4,
    ];

    /// The type with on-disk id `id`, or `None` for ids that are unknown or were removed
    /// from the format (4, 5, 31-33, 36-38).
    pub fn from_id(id: u32) -> Option<Self> {
        Self::ALL.iter().copied().find(|t| t.id() == id)
    }

    /// The on-disk id.
    pub fn id(self) -> u32 {
        self as u32
    }

    /// ggml's name of the type (`"q4_1"`, `"q6_K"`, ...).
    pub fn name(self) -> &'static str {
        use GgmlType::*;
        match self {
            F32 => "f32",
            F16 => "f16",
            Q4_0 => "q4_0",
            Q4_1 => "q4_1",
            Q5_0 => "q5_0",
            Q5_1 => "q5_1",
            Q8_0 => "q8_0",
            Q8_1 => "q8_1",
            Q2K => "q2_K",
            Q3K => "q3_K",
            Q4K => "q4_K",
            Q5K => "q5_K",
            Q6K => "q6_K",
            Q8K => "q8_K",
            Iq2Xxs => "iq2_xxs",
            Iq2Xs => "iq2_xs",
            Iq3Xxs => "iq3_xxs",
            Iq1S => "iq1_s",
            Iq4Nl => "iq4_nl",
            Iq3S => "iq3_s",
            Iq2S => "iq2_s",
            Iq4Xs => "iq4_xs",
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            F64 => "f64",
            Iq1M => "iq1_m",
            BF16 => "bf16",
            Tq1_0 => "tq1_0",
            Tq2_0 => "tq2_0",
            Mxfp4 => "mxfp4",
        }
    }

    /// Elements per block (1 for plain types).
    pub fn block_size(self) -> u64 {
        use GgmlType::*;
        match self {
            F32 | F16 | BF16 | F64 | I8 | I16 | I32 | I64 => 1,
            Q4_0 | Q4_1 | Q5_0 | Q5_1 | Q8_0 | Q8_1 | Iq4Nl | Mxfp4 => 32,
            Q2K | Q3K | Q4K | Q5K | Q6K | Q8K | Iq2Xxs | Iq2Xs | Iq3Xxs | Iq1S | Iq3S | Iq2S
            | Iq4Xs | Iq1M | Tq1_0 | Tq2_0 => QK_K,
        }
    }

    /// Bytes per block.
    pub fn type_size(self) -> u64 {
        use GgmlType::*;
        match self {
            F32 | I32 => 4,
            F16 | BF16 | I16 => 2,
            F64 | I64 => 8,
            I8 => 1,
            Q4_0 => 18,   // f16 d + 16 nibble bytes
            Q4_1 => 20,   // f16 d, m + 16
            Q5_0 => 22,   // f16 d + 4 high bits + 16
            Q5_1 => 24,   // f16 d, m + 4 + 16
            Q8_0 => 34,   // f16 d + 32
            Q8_1 => 36,   // f16 d, s + 32
            Q2K => 84,    // 16 scales + 64 quants + f16 d, dmin
            Q3K => 110,   // 32 hmask + 64 quants + 12 scales + f16 d
            Q4K => 144,   // f16 d, dmin + 12 scales + 128 quants
            Q5K => 176,   // f16 d, dmin + 12 scales + 32 high bits + 128 quants
            Q6K => 210,   // 128 low + 64 high + 16 scales + f16 d
            Q8K => 292,   // f32 d + 256 quants + 16 i16 sums
            Iq2Xxs => 66, // f16 d + 32 u16
            Iq2Xs => 74,  // f16 d + 32 u16 + 8 scales
            Iq3Xxs => 98, // f16 d + 96
            Iq1S => 50,   // f16 d + 32 + 8 u16
            Iq4Nl => 18,  // f16 d + 16
            Iq3S => 110,  // f16 d + 64 + 8 + 32 + 4
            Iq2S => 82,   // f16 d + 64 + 8 + 8
            Iq4Xs => 136, // f16 d + u16 + 4 + 128
            Iq1M => 56,   // 32 + 16 + 8
            Tq1_0 => 54,  // f16 d + 4 + 48
            Tq2_0 => 66,  // f16 d + 64
            Mxfp4 => 17,  // e8m0 scale + 16
        }
    }

    /// True for the block-quantized types.
    pub fn is_quantized(self) -> bool {
        self.block_size() > 1
    }

    /// Bytes taken by a row of `n` elements, or `None` if `n` is not a multiple of the
    /// block size or the size overflows.
    pub fn row_bytes(self, n: u64) -> Option<u64> {
        let bs = self.block_size();
        if !n.is_multiple_of(bs) {
            return None;
        }
        (n / bs).checked_mul(self.type_size())
    }
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_removed_ids_are_unknown() {
        for t in GgmlType::ALL {
            assert_eq!(GgmlType::from_id(t.id()), Some(t));
        }
        for id in [4, 5, 31, 32, 33, 36, 37, 38, 43, 1000, u32::MAX] {
            assert_eq!(GgmlType::from_id(id), None, "id {id}");
        }
    }

    #[test]
    fn row_bytes_match_ggml_block_layouts() {
        assert_eq!(GgmlType::F32.row_bytes(576), Some(2304));
        assert_eq!(GgmlType::F16.row_bytes(3), Some(6));
        assert_eq!(GgmlType::Q4_1.row_bytes(576), Some(18 * 20));
        assert_eq!(GgmlType::Q8_0.row_bytes(64), Some(68));
        assert_eq!(GgmlType::Q4K.row_bytes(896), None);
        assert_eq!(GgmlType::Q6K.row_bytes(4864), Some(19 * 210));
        assert_eq!(GgmlType::Q4_0.row_bytes(33), None);
        assert_eq!(GgmlType::Q8K.row_bytes(u64::MAX - 255), None);
    }
}
