//! Description of one tensor in a GGUF file (name, shape, type, where its bytes are).

use super::ggml_type::GgmlType;

/// One entry of the tensor table. Sizes and offsets were validated against the file when it
/// was opened, so [`GgufFile::tensor_data`](super::GgufFile::tensor_data) cannot fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    name: String,
    dims: Vec<u64>,
    ggml_type: GgmlType,
    offset: u64,
    n_elements: u64,
    n_rows: u64,
    n_bytes: u64,
}

impl TensorInfo {
    pub(crate) fn new(
        name: String,
        dims: Vec<u64>,
        ggml_type: GgmlType,
        offset: u64,
        n_elements: u64,
        n_rows: u64,
        n_bytes: u64,
    ) -> Self {
        Self {
            name,
            dims,
            ggml_type,
            offset,
            n_elements,
            n_rows,
            n_bytes,
        }
    }

    /// Tensor name, e.g. `blk.0.attn_q.weight`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Dimensions in ggml order: `dims()[0]` is the row length (contiguous), then rows, ...
    /// A weight matrix `[n_out, n_in]` in PyTorch terms is `[n_in, n_out]` here.
    pub fn dims(&self) -> &[u64] {
        &self.dims
    }

    /// Element type.
    pub fn ggml_type(&self) -> GgmlType {
        self.ggml_type
    }

    /// Offset of the data relative to the start of the data section.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Total number of elements.
    pub fn n_elements(&self) -> u64 {
        self.n_elements
    }

    /// Exact size of the data in bytes.
    pub fn n_bytes(&self) -> u64 {
        self.n_bytes
    }

    /// Elements per row (`dims()[0]`, 1 for a scalar).
    pub fn row_len(&self) -> u64 {
        self.dims.first().copied().unwrap_or(1)
    }

    /// Number of rows (product of the outer dimensions, checked when the file was read).
    pub fn n_rows(&self) -> u64 {
        self.n_rows
    }

    /// Bytes per row.
    pub fn row_bytes(&self) -> u64 {
        // Validated at parse time: the row length is a multiple of the block size.
        self.ggml_type.row_bytes(self.row_len()).unwrap_or(0)
    }
}
