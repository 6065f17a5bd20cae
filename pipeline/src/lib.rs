//! Pocket Voice voice loop: capture, VAD/endpointing, ASR, LLM, segmenter, TTS and playback as
//! actors joined by bounded channels, with barge-in and per-turn latency metrics.
//!
//! Start a loop with [`Pipeline::start`] on a set of [`engines::Engines`]; attach audio to the
//! returned [`AudioPorts`] (a device with `audio::device`, files with `audio::file`); drive it
//! and read its [`Event`]s through the cloneable [`PipelineHandle`].
//!
//! Floors inside the crate: the playback [`ring`] and the sample-rate conversions
//! ([`resample`]) are used by the actors and the handle; `audio/` (devices, files, WAV) sits
//! above them and drives a running pipeline through its handle. Nothing below `audio/`
//! imports from it.

mod actor;
pub mod audio;
pub mod backchannel;
mod chan;
mod choices;
mod clock;
mod config;
mod echo;
pub mod engines;
mod error;
mod handle;
mod heard;
pub mod metrics;
pub mod resample;
pub mod ring;
mod sim;
pub mod soak;
mod types;

pub use choices::{ChatChoice, EndpointChoice};
pub use clock::{Clock, ms};
pub use config::{EndpointConfig, EndpointMode, PipelineConfig, SemanticEndpoint, SmartEndpoint};
pub use error::PipelineError;
pub use handle::{AudioPorts, ErrorReporter, MicSender, Pipeline, PipelineHandle};
pub use metrics::{Report, TurnMetrics};
pub use types::{Event, InterruptCause, InterruptedWhile, Stamped, State, TurnId};

#[cfg(test)]
mod tests;
