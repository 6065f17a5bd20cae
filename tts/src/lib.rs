//! Pocket Voice speech synthesis: text normalization, phonemization, Piper voices and a fallback
//! voice, streamed clause by clause.
//!
//! The synthesizer is being built under issue 5; this crate currently holds only its error type.

mod error;
pub use error::TtsError;
