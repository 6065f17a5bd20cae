//! The one error type of the speech recognizer.

use std::path::PathBuf;

/// Errors of the speech recognizer; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum AsrError {
    /// A model file could not be read: check the path and permissions, or re-fetch the asset.
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A model file is corrupt, truncated or of an unexpected layout: re-fetch the asset
    /// (`pocket assets fetch --id ...`).
    #[error("bad model file {path}: {detail}")]
    BadModel { path: PathBuf, detail: String },
    /// The recognizer configuration is invalid: fix the named setting.
    #[error("invalid configuration: {0}")]
    BadConfig(String),
    /// The audio handed in cannot be recognized as given (empty, wrong rate or channel count):
    /// the message says what to change.
    #[error("invalid audio: {0}")]
    BadAudio(String),
    /// A compute kernel failed (a job panicked on a pool thread): a bug; the window's result
    /// is lost, the recognizer stays usable. Report it with the message.
    #[error("compute kernel failed: {0}")]
    Kernel(#[from] pocket_kernels::KernelError),
}
