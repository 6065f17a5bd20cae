//! Pocket Voice speech recognition: Whisper (CTranslate2 weights) with a log-mel front end,
//! voice activity detection and endpointing, behind a streaming recognizer API.
//!
//! ```no_run
//! # fn main() -> Result<(), pocket_asr::AsrError> {
//! use pocket_asr::{Recognizer, RecognizerConfig};
//! let rec = Recognizer::load(std::path::Path::new("whisper-tiny.en"), RecognizerConfig::default())?;
//! let mut stream = rec.stream();
//! # let mic_chunk = vec![0.0f32; 1600];
//! stream.accept(&mic_chunk); // 16 kHz mono; accept_any() converts other formats
//! if stream.is_endpoint() {
//!     let text = stream.finish()?.text;
//!     stream.reset();
//! }
//! # Ok(()) }
//! ```

mod audio;
pub mod confidence;
mod config;
pub mod context;
pub mod ct2;
pub mod endpoint;
mod error;
pub mod gemm;
pub mod hearing;
mod long_pause;
pub mod mel;
#[cfg(test)]
mod mel_ref;
mod recognizer;
pub mod resample;
pub mod silero;
mod stream;
pub mod vad;
pub mod vocab;
pub mod whisper;

pub use config::RecognizerConfig;
pub use context::Context;
pub use endpoint::{EndpointConfig, EndpointEvent, Endpointer};
pub use error::AsrError;
pub use gemm::WeightFormat;
pub use recognizer::{OtherHearing, Recognizer, Timings, Transcript};
pub use resample::Resampler;
pub use stream::{AsrStream, UtteranceSpan};
pub use vad::Vad;
pub use whisper::decode::Search;
