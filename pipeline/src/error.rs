//! The one error type of the voice loop.

/// Errors of the voice loop; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("audio device error: {0}")]
    Device(String),
}
