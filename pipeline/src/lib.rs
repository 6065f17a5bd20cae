//! Pocket Voice voice loop: capture, VAD/endpointing, ASR, LLM, segmenter, TTS and playback as
//! actors joined by bounded channels, with barge-in and per-turn latency metrics.
//!
//! The pipeline is being built under issue 6; this crate currently holds only its error type.

mod error;
pub use error::PipelineError;
