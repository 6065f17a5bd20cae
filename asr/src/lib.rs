//! Pocket Voice speech recognition: Whisper (CTranslate2 weights) with a log-mel front end,
//! voice activity detection and endpointing, behind a streaming recognizer API.

pub mod ct2;
mod error;
pub mod gemm;
pub mod mel;
#[cfg(test)]
mod mel_ref;
pub mod pool;
pub mod vocab;

pub use error::AsrError;
