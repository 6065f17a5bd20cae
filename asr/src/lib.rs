//! Pocket Voice speech recognition: Whisper (CTranslate2 weights) with a log-mel front end,
//! voice activity detection and endpointing, behind a streaming recognizer API.
//!
//! The recognizer is being built under issue 4; this crate currently holds only its error type.

mod error;
pub use error::AsrError;
