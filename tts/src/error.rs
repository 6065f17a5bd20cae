//! The one error type of the speech synthesizer.

use std::path::PathBuf;

/// Errors of the speech synthesizer; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum TtsError {
    /// A file could not be read or written: check the path and permissions.
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The voice's `.onnx.json` is not a Piper voice config: fetch the voice again.
    #[error("bad Piper voice config {path}: {detail}")]
    BadConfig { path: PathBuf, detail: String },
    /// The ONNX Runtime library could not be loaded: fetch the `onnxruntime` asset.
    #[error("cannot load ONNX Runtime from {path}: {detail}")]
    Runtime { path: PathBuf, detail: String },
    /// The voice model could not be loaded or run: the file may be corrupt; fetch it again.
    #[error("Piper model {path}: {detail}")]
    Model { path: PathBuf, detail: String },
    /// Inference failed on one piece of text.
    #[error("synthesis failed: {0}")]
    Inference(String),
    /// libespeak-ng (or its data) is missing: install `libespeak-ng1` and `espeak-ng-data`
    /// (scripts/setup-system), or use the fallback voice.
    #[error("espeak-ng phonemizer unavailable: {0}")]
    Phonemizer(String),
    /// A parameter is out of its range (sample rate 0, and the like).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The WAV writer failed.
    #[error("WAV error on {path}: {detail}")]
    Wav { path: PathBuf, detail: String },
}
