//! The one error type of the LLM engine.

/// Errors of the LLM engine; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("I/O error on {path}: {source}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}
