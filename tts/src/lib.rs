//! Pocket Voice speech synthesis: text normalization, espeak-ng phonemization, Piper voices on
//! ONNX Runtime and a built-in fallback voice, streamed clause by clause.
//!
//! Synchronous (`&mut self`, no async runtime). The audio path reuses its buffers (phoneme ids,
//! PCM) and allocates nothing per chunk beyond ONNX Runtime's output tensor; the text front
//! end (segment, normalize, phonemize) builds a few small strings per sentence, microseconds
//! against the milliseconds of a model run.
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! let store = pocket_assets::Store::open_default()?;
//! let mut voice = pocket_tts::load_default_voice(&store);
//! let cancel = AtomicBool::new(false);
//! voice.synthesize("Hello there, how are you?", &cancel, &mut |pcm| {
//!     // play or queue `pcm` (f32 mono at voice.sample_rate())
//!     std::ops::ControlFlow::Continue(())
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod abbrev;
mod error;
mod fallback;
pub mod normalize;
pub mod phonemize;
pub mod piper;
mod resample;
pub mod segment;
mod voice;
mod wav;

pub use error::TtsError;
pub use fallback::FallbackVoice;
pub use normalize::normalize;
pub use piper::config::PiperConfig;
pub use piper::model::environment as onnx_environment;
pub use piper::voice::{PiperOptions, PiperVoice};
pub use resample::{MAX_SAMPLE_RATE, MIN_SAMPLE_RATE, resample};
pub use segment::{Segmenter, SegmenterConfig};
pub use voice::{Cut, SynthStats, Voice, speak_to_vec};
pub use wav::write_wav;

use pocket_assets::{Store, ids};
use std::path::PathBuf;

/// File names of the default Piper voice inside its asset.
pub const JOE_ONNX: &str = "en_US-joe-medium.onnx";
pub const JOE_CONFIG: &str = "en_US-joe-medium.onnx.json";
/// The ONNX Runtime shared library inside the `onnxruntime` asset.
pub const ORT_LIBRARY: &str = "libonnxruntime.so";

/// Paths of the default Piper voice and the ONNX Runtime library, if all are installed.
pub fn default_piper_paths(store: &Store) -> Result<(PathBuf, PathBuf, PathBuf), TtsError> {
    let missing = |e: pocket_assets::AssetError| TtsError::Model {
        path: store.root().to_path_buf(),
        detail: e.to_string(),
    };
    let onnx = store
        .require_file(ids::PIPER_JOE, JOE_ONNX)
        .map_err(missing)?;
    let config = store
        .require_file(ids::PIPER_JOE, JOE_CONFIG)
        .map_err(missing)?;
    let ort = store
        .require_file(ids::ONNXRUNTIME, ORT_LIBRARY)
        .map_err(missing)?;
    Ok((onnx, config, ort))
}

/// A voice and, when it is the fallback, why Piper could not be used.
pub struct ChosenVoice {
    pub voice: Box<dyn Voice>,
    pub fallback_reason: Option<TtsError>,
}

/// The Piper joe voice if it and ONNX Runtime are installed and espeak-ng works; otherwise the
/// built-in fallback voice, with the reason.
pub fn choose_default_voice(store: &Store, options: &PiperOptions) -> ChosenVoice {
    let piper = default_piper_paths(store)
        .and_then(|(onnx, config, ort)| PiperVoice::load_with(&onnx, &config, &ort, options));
    match piper {
        Ok(v) => ChosenVoice {
            voice: Box::new(v),
            fallback_reason: None,
        },
        Err(e) => ChosenVoice {
            voice: Box::new(FallbackVoice::new()),
            fallback_reason: Some(e),
        },
    }
}

/// The default voice: Piper joe if installed, else the fallback (`voice.name()` says which;
/// [`choose_default_voice`] also says why).
pub fn load_default_voice(store: &Store) -> Box<dyn Voice> {
    choose_default_voice(store, &PiperOptions::default()).voice
}
