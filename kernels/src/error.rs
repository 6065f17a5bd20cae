//! The one error type of the kernels crate.

use crate::DType;

/// Errors of the kernels; variants say what the caller got wrong.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    /// A row length that is not a whole number of blocks of the format.
    #[error("{dtype:?} rows need a multiple of {block} elements, got {cols}")]
    RaggedRow {
        dtype: DType,
        block: usize,
        cols: usize,
    },
    /// A weight byte buffer whose size does not match `rows x cols` of its format.
    #[error("{dtype:?} matrix {rows}x{cols} needs {expected} bytes, got {actual}")]
    WeightSize {
        dtype: DType,
        rows: usize,
        cols: usize,
        expected: usize,
        actual: usize,
    },
    /// Input/output buffers whose lengths disagree with the matrix shape.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A weight format this operation cannot take (e.g. as activations).
    #[error("{0:?} is not supported here")]
    Unsupported(DType),
    /// Reading weights to repack failed.
    #[error("cannot read weights: {0}")]
    Io(#[source] std::io::Error),
    /// A job panicked on pool thread `thread` (0 is the caller): a bug in the kernel or its
    /// inputs; the job's output is incomplete and must be discarded.
    #[error("compute job panicked on pool thread {thread}: {message}")]
    JobPanicked { thread: usize, message: String },
    /// The OS refused to start a worker thread.
    #[error("cannot start worker thread: {0}")]
    Thread(#[source] std::io::Error),
}
