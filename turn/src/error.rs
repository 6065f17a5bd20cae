//! The one error type of end-of-turn detection.

use std::path::PathBuf;

/// Errors of the end-of-turn classifier; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    /// The model file is missing: fetch it (`pocket assets fetch smart-turn-v3`).
    #[error("end-of-turn model {path} not found")]
    Missing { path: PathBuf },
    /// The model could not be loaded, or is not a Smart Turn v3 model: fetch it again.
    #[error("end-of-turn model {path}: {detail}")]
    Model { path: PathBuf, detail: String },
    /// ONNX Runtime failed on one input.
    #[error("end-of-turn inference failed: {0}")]
    Inference(String),
}
