//! The one error type of the speech synthesizer.

/// Errors of the speech synthesizer; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum TtsError {
    #[error("I/O error on {path}: {source}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}
