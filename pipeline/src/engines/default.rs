//! The default engine set, located through the asset store: earshot VAD, Whisper tiny.en,
//! SmolLM2-135M-Instruct, the Piper joe voice (or the built-in fallback voice) and the TTS
//! crate's segmenter.

use pocket_assets::{Store, ids};

use super::Engines;
use super::asr::{VadDetector, WhisperTranscriber};
use super::llm::LlmChat;
use super::tts::{ReplySegmenter, VoiceSpeaker};
use crate::PipelineError;

/// How the default engines are loaded.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Compute threads for each engine.
    pub threads: usize,
    /// Decode partial transcripts while the user speaks (off for faster-than-real-time runs).
    pub partials: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            threads: 2,
            partials: true,
        }
    }
}

/// The loaded engines and what the caller needs to know about them.
pub struct LoadedEngines {
    pub engines: Engines,
    /// The voice's sample rate (a good output rate for file sinks).
    pub voice_rate: u32,
    /// Why the Piper voice could not be used, if the fallback voice speaks.
    pub voice_fallback: Option<String>,
}

/// Loads the default engines; a missing model names the command that fetches it.
pub fn load_default(store: &Store, opts: &EngineOptions) -> Result<LoadedEngines, PipelineError> {
    let missing = |e: pocket_assets::AssetError| PipelineError::Engine(e.to_string());
    let whisper = store.require(ids::WHISPER_TINY_EN).map_err(missing)?;
    let gguf = store
        .require_file(ids::SMOLLM2, ids::SMOLLM2_FILE)
        .map_err(missing)?;
    let engine = |what: &str, e: super::EngineError| PipelineError::Engine(format!("{what}: {e}"));
    let transcriber = WhisperTranscriber::load(&whisper, opts.threads, opts.partials)
        .map_err(|e| engine("speech recognition", e))?;
    let chat = LlmChat::load(&gguf, opts.threads).map_err(|e| engine("language model", e))?;
    let piper = pocket_tts::PiperOptions {
        intra_threads: opts.threads.max(1),
        ..Default::default()
    };
    let chosen = pocket_tts::choose_default_voice(store, &piper);
    let voice_rate = chosen.voice.sample_rate();
    Ok(LoadedEngines {
        engines: Engines {
            detector: Box::new(VadDetector::default()),
            transcriber: Box::new(transcriber),
            chat: Box::new(chat),
            segmenter: Box::new(ReplySegmenter::default()),
            speaker: Box::new(VoiceSpeaker(chosen.voice)),
        },
        voice_rate,
        voice_fallback: chosen.fallback_reason.map(|e| e.to_string()),
    })
}
