//! Semantic end-of-turn detection: is the user done, or only pausing mid-sentence?
//!
//! [`SmartTurn`] runs Pipecat's Smart Turn v3 (asset `smart-turn-v3`) on ONNX Runtime: the last
//! 8 s of the turn's 16 kHz audio, as Whisper log-mel features ([`features`]), give the
//! probability that the turn is complete. The caller owns the process's one ONNX Runtime
//! environment (the speech synthesizer makes it) and passes it in. Synchronous, no threads of
//! its own: the pipeline runs it on a worker beside the capture actor.
//!
//! ```no_run
//! # fn demo(env: &ort::environment::Environment) -> Result<(), pocket_turn::TurnError> {
//! let mut model = pocket_turn::SmartTurn::load(std::path::Path::new("smart-turn-v3.2-cpu.onnx"), env, 1)?;
//! let turn_audio = vec![0.0f32; 32_000]; // 16 kHz mono, the turn so far (pause included)
//! let p_complete = model.predict(&turn_audio)?;
//! # let _ = p_complete; Ok(()) }
//! ```

mod error;
pub mod features;
mod model;

pub use error::TurnError;
pub use model::SmartTurn;
/// The ONNX Runtime environment type [`SmartTurn::load`] takes.
pub use ort::environment::Environment;
