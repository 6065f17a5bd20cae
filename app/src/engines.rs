//! The engines a session runs on, loaded for the chosen settings through the pipeline's adapters:
//! VAD + Whisper for speech, the chosen language model for replies, the reply segmenter, and the
//! chosen voice (Piper, or the built-in one).

use pocket_assets::{Store, ids};
use pocket_pipeline::PipelineError;
use pocket_pipeline::engines::asr::{VadDetector, WhisperTranscriber};
use pocket_pipeline::engines::default::LANGUAGE_MODELS;
use pocket_pipeline::engines::llm::LlmChat;
use pocket_pipeline::engines::tts::{ReplySegmenter, VoiceSpeaker};
use pocket_pipeline::engines::{EngineError, Engines};

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

/// The GGUF file of a language model asset (the pipeline's list of the models it can run).
fn gguf_name(model: &str) -> Result<&'static str, AppError> {
    LANGUAGE_MODELS
        .iter()
        .find(|(id, _)| *id == model)
        .map(|(_, file)| *file)
        .ok_or_else(|| AppError::Settings(format!("unknown model {model:?}")))
}

/// Loads every engine for `settings` (the model files must be installed).
pub fn load(store: &Store, settings: &Settings) -> Result<Loaded, AppError> {
    let failed = |what: &str, e: EngineError| {
        AppError::Pipeline(PipelineError::Engine(format!("{what}: {e}")))
    };
    let whisper = store.require(ids::WHISPER_TINY_EN)?;
    let transcriber = WhisperTranscriber::load(&whisper, THREADS, true)
        .map_err(|e| failed("speech recognition", e))?;
    let gguf = store.require_file(&settings.model, gguf_name(&settings.model)?)?;
    let chat = LlmChat::load(&gguf, THREADS).map_err(|e| failed("language model", e))?;
    let mut warnings = Vec::new();
    let voice: Box<dyn pocket_tts::Voice> = if settings.voice == FALLBACK_VOICE {
        Box::new(pocket_tts::FallbackVoice::new())
    } else {
        let options = pocket_tts::PiperOptions {
            intra_threads: THREADS,
            ..Default::default()
        };
        let chosen = pocket_tts::choose_default_voice(store, &options);
        if let Some(why) = chosen.fallback_reason {
            warnings.push(format!("speaking with the built-in voice: {why}"));
        }
        chosen.voice
    };
    let voice_name = voice.name().to_string();
    Ok(Loaded {
        engines: Engines {
            detector: Box::new(VadDetector::default()),
            transcriber: Box::new(transcriber),
            chat: Box::new(chat),
            segmenter: Box::new(ReplySegmenter::default()),
            speaker: Box::new(VoiceSpeaker(voice)),
        },
        model: settings.model.clone(),
        voice: voice_name,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_model_has_its_file() {
        for m in crate::settings::MODELS {
            assert!(gguf_name(m.id).is_ok(), "{}", m.id);
        }
        assert!(gguf_name("nope").is_err());
    }
}
