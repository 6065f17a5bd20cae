//! The engines a session runs on: the pipeline's `load_default` (the same set `pocket talk`
//! and `pocket converse` use: Silero VAD shared by the detector and the recognizer's stream,
//! Whisper tiny.en, the chosen language model with the voice chat policy, the reply
//! segmenter, and Piper or the built-in voice) for the app's settings.

use pocket_assets::Store;
use pocket_pipeline::engines::Engines;
use pocket_pipeline::engines::default::{EngineOptions, load_default};

use crate::error::AppError;
use crate::settings::{FALLBACK_VOICE, Settings};

/// Threads for each engine (they take turns on a phone's or laptop's big cores).
const THREADS: usize = 2;

/// Loaded engines and what they turned out to be.
pub struct Loaded {
    pub engines: Engines,
    /// The language model, as its asset id.
    pub model: String,
    /// The voice's name (the built-in one if the chosen voice could not load).
    pub voice: String,
    pub warnings: Vec<String>,
}

/// How `settings` map onto the pipeline's engine options (audio always arrives in real time:
/// a microphone, or a file paced like one).
fn options(settings: &Settings) -> EngineOptions {
    EngineOptions {
        threads: THREADS,
        realtime: true,
        model: settings.model.clone(),
        fallback_voice: settings.voice == FALLBACK_VOICE,
        ..EngineOptions::default()
    }
}

/// Loads every engine for `settings` (the model files must be installed).
pub fn load(store: &Store, settings: &Settings) -> Result<Loaded, AppError> {
    let mut options = options(settings);
    options.model = settings.resolved_model(store);
    let loaded = load_default(store, &options)?;
    Ok(Loaded {
        engines: loaded.engines,
        model: loaded.model,
        voice: loaded.voice,
        warnings: loaded.warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pocket_pipeline::engines::default::LANGUAGE_MODELS;

    #[test]
    fn every_listed_model_is_one_the_pipeline_loads() {
        for m in crate::settings::MODELS {
            if m.id == crate::settings::AUTO_MODEL {
                continue;
            }
            assert!(
                LANGUAGE_MODELS.iter().any(|(id, _)| *id == m.id),
                "{}",
                m.id
            );
        }
    }

    #[test]
    fn settings_choose_the_model_and_voice() {
        let s = Settings {
            model: pocket_assets::ids::QWEN25_CODER.into(),
            voice: FALLBACK_VOICE.into(),
            ..Settings::default()
        };
        let o = options(&s);
        assert!(o.fallback_voice && o.realtime && o.threads == THREADS);
        assert_eq!(o.model, pocket_assets::ids::QWEN25_CODER);
        assert!(!options(&Settings::default()).fallback_voice);
    }
}
