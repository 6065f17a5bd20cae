//! The one error type of the voice loop.

/// Errors of the voice loop; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// No usable audio device, or it failed: pick another device or use file I/O.
    #[error("audio device error: {0}")]
    Device(String),
    /// A configuration value is out of range: fix the value.
    #[error("invalid pipeline configuration: {0}")]
    Config(String),
    /// An audio file could not be read or written: check the path and format.
    #[error("audio file {path}: {message}")]
    AudioFile { path: String, message: String },
    /// An engine failed to load: fetch its model (`pocket assets fetch`) or check the file.
    #[error("engine failed to load: {0}")]
    Engine(String),
    /// The system refused to start a thread: free resources and retry.
    #[error("cannot start thread: {0}")]
    Spawn(#[from] std::io::Error),
    /// A turn took longer than allowed: check the engines or raise the timeout.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The pipeline stopped before the request could be served.
    #[error("the pipeline has stopped")]
    Stopped,
}
