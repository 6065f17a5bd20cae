//! The one error type of the speech recognizer.

/// Errors of the speech recognizer; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum AsrError {
    #[error("I/O error on {path}: {source}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}
