//! The one entry point that loads a complete engine set through the asset store, for the CLI
//! and the app alike: Silero VAD (earshot if its file is missing), Whisper tiny.en, a chat
//! model (SmolLM2-135M-Instruct by default) with the voice policy, the Piper joe voice (or
//! the built-in fallback voice), the TTS crate's segmenter and the Smart Turn end-of-turn
//! classifier (turns end after a fixed silence if its model is missing).

use pocket_assets::{Store, ids};

use super::Engines;
use super::asr::{
    HEARING_SYSTEM_PROMPT, HEARING_THREADS, LlmHearingScorer, VadDetector, WhisperTranscriber,
};
use super::llm::{LlmChat, VoiceChatConfig};
use super::tts::{ReplySegmenter, VoiceSpeaker};
use super::turn::SmartTurnClassifier;
use crate::PipelineError;

/// The chat models `load_default` knows: asset id and GGUF file name.
pub const LANGUAGE_MODELS: [(&str, &str); 3] = [
    (ids::SMOLLM2, ids::SMOLLM2_FILE),
    (ids::QWEN25_CODER, ids::QWEN25_CODER_FILE),
    (ids::QWEN25_CODER_15B, ids::QWEN25_CODER_15B_FILE),
];

/// The model that judges the user's words (semantic endpointing) beside a larger answering
/// model: SmolLM2-135M on one thread.
pub const WORDS_JUDGE_MODEL: &str = ids::SMOLLM2;

/// The Silero VAD weights in the `silero-vad` asset.
const SILERO_VAD_FILE: &str = "silero_vad_16k.safetensors";

/// How the default engines are loaded.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Compute threads of each engine (they mostly take turns: recognition while the user
    /// speaks, then the reply's generation and synthesis).
    pub threads: usize,
    /// Audio arrives in real time (a microphone, a paced file): decode partial transcripts
    /// while the user speaks and the final one during the end-of-speech silence. Off for
    /// faster-than-real-time runs, where those decodes would only add work: the final is then
    /// decoded once, after the endpoint.
    pub realtime: bool,
    /// The chat model: an asset id (one of [`LANGUAGE_MODELS`]) or a GGUF file's path.
    pub model: String,
    /// Speak with the built-in voice even if Piper is installed.
    pub fallback_voice: bool,
    /// The chat's system prompt, sampler and reply limits (its `threads` is set from
    /// `threads`).
    pub chat: VoiceChatConfig,
    /// Load the end-of-turn classifier (for `EndpointMode::Smart`).
    pub turn_classifier: bool,
    /// When the chat model is not [`WORDS_JUDGE_MODEL`], load that one too, to judge the
    /// user's words at each pause (semantic endpointing) on a thread of its own, so the
    /// verdict never waits on the larger model. Without its file the chat model judges.
    pub words_judge: bool,
    /// How the recognizer searches for final transcripts (beam width, and below which greedy
    /// confidence the beam runs).
    pub asr_search: pocket_asr::Search,
    /// Let the words judge (loaded beside a larger chat model) pick among the recognizer's
    /// hearings of a final the beam searched (`pocket_asr::hearing`).
    pub hearing_choice: bool,
    /// Earlier text the recognizer is given for the user's turns (empty: none); see
    /// `pocket_asr::RecognizerConfig::plain_text`. Default: none. A few everyday questions
    /// (`pocket_asr::context::QUESTION_TEXT`, `--asr-earlier-text`) make tiny.en hear more
    /// questions right but cost the loop ~20 ms at the median (docs/PERFORMANCE.md).
    pub asr_plain_text: String,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            threads: 2,
            realtime: true,
            model: ids::SMOLLM2.to_string(),
            fallback_voice: false,
            chat: VoiceChatConfig::default(),
            turn_classifier: true,
            words_judge: true,
            asr_search: pocket_asr::RecognizerConfig::default().final_search(),
            hearing_choice: true,
            asr_plain_text: String::new(),
        }
    }
}

/// The GGUF file of `model`: one of [`LANGUAGE_MODELS`]' asset ids (installed in `store`),
/// or a path to any GGUF file (llama, qwen2 or qwen3; the model loader names what else is
/// unsupported).
pub fn model_file(store: &Store, model: &str) -> Result<std::path::PathBuf, PipelineError> {
    if let Some((id, file)) = LANGUAGE_MODELS.iter().find(|(id, _)| *id == model) {
        return store
            .require_file(id, file)
            .map_err(|e| PipelineError::Engine(e.to_string()));
    }
    let path = std::path::Path::new(model);
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    let ids: Vec<&str> = LANGUAGE_MODELS.iter().map(|(id, _)| *id).collect();
    Err(PipelineError::Engine(format!(
        "unknown language model {model:?}: give an asset id ({}) or the path of a GGUF file",
        ids.join(", ")
    )))
}

/// The loaded engines and what they turned out to be.
pub struct LoadedEngines {
    pub engines: Engines,
    /// The voice's sample rate (a good output rate for file sinks).
    pub voice_rate: u32,
    /// The voice's name (the built-in one's if Piper could not load).
    pub voice: String,
    /// The chat model (asset id or path, as asked for).
    pub model: String,
    /// Which speech detector runs: "silero" or "earshot".
    pub vad: &'static str,
    /// The end-of-turn classifier loaded (smart endpointing is possible).
    pub turn_classifier: bool,
    /// The model judging the user's words on its own thread, if one was loaded.
    pub words_judge: Option<String>,
    /// What fell back and why (no Silero weights, no Piper voice), for the user to see.
    pub warnings: Vec<String>,
}

/// Loads the engines `opts` asks for; a missing model names the command that fetches it.
pub fn load_default(store: &Store, opts: &EngineOptions) -> Result<LoadedEngines, PipelineError> {
    let missing = |e: pocket_assets::AssetError| PipelineError::Engine(e.to_string());
    let engine = |what: &str, e: super::EngineError| PipelineError::Engine(format!("{what}: {e}"));
    let threads = opts.threads.max(1);
    let mut warnings = Vec::new();

    let whisper = store.require(ids::WHISPER_TINY_EN).map_err(missing)?;
    let vad_model = match store.require_file(ids::SILERO_VAD, SILERO_VAD_FILE) {
        Ok(p) => Some(p),
        Err(e) => {
            warnings.push(format!("speech detection falls back to earshot: {e}"));
            None
        }
    };
    let rec = WhisperTranscriber::recognizer(
        &whisper,
        threads,
        vad_model,
        opts.asr_search,
        &opts.asr_plain_text,
    )
    .map_err(|e| engine("speech recognition", e))?;
    // The loop's one voice detector (the recognizer's stream has none of its own).
    let detector = VadDetector(rec.new_vad());
    let vad = if rec.config().vad_model.is_some() {
        "silero"
    } else {
        "earshot"
    };

    let gguf = model_file(store, &opts.model)?;
    let chat = LlmChat::load_with(
        &gguf,
        VoiceChatConfig {
            threads,
            ..opts.chat.clone()
        },
    )
    .map_err(|e| engine("language model", e))?;

    let words_judge = if opts.words_judge && opts.model != WORDS_JUDGE_MODEL {
        load_words_judge(store, &opts.chat)
            .map_err(|e| warnings.push(format!("the chat model judges the ends of turns: {e}")))
            .ok()
    } else {
        None
    };

    let mut transcriber = WhisperTranscriber::new(&rec, opts.realtime);
    // The words judge scores the hearings when a larger model answers: the answer is worth
    // the ~50 ms on an unsure turn there (docs/PERFORMANCE.md, "The words judge picks the
    // hearing"); the small model's own loop stays as quick as it was.
    if let Some(judge) = words_judge.as_ref().filter(|_| opts.hearing_choice) {
        let scorer = pocket_llm::TextScorer::new(
            judge.model().clone(),
            Some(HEARING_SYSTEM_PROMPT),
            HEARING_THREADS,
        );
        match scorer {
            Ok(s) => transcriber = transcriber.with_hearing_scorer(LlmHearingScorer(s)),
            Err(e) => warnings.push(format!("the recognizer's best hearing is kept: {e}")),
        }
    }

    let voice: Box<dyn pocket_tts::Voice> = if opts.fallback_voice {
        Box::new(pocket_tts::FallbackVoice::new())
    } else {
        let piper = pocket_tts::PiperOptions {
            intra_threads: threads,
            ..Default::default()
        };
        let chosen = pocket_tts::choose_default_voice(store, &piper);
        if let Some(why) = chosen.fallback_reason {
            warnings.push(format!("speaking with the built-in voice: {why}"));
        }
        chosen.voice
    };
    // One thread: it runs beside the recognizer's final decode, on the pause.
    let turn = if opts.turn_classifier {
        match SmartTurnClassifier::load(store, 1) {
            Ok(t) => Some(Box::new(t) as Box<dyn super::TurnClassifier>),
            Err(e) => {
                warnings.push(format!(
                    "turns end after a fixed silence (no end-of-turn classifier): {e}"
                ));
                None
            }
        }
    } else {
        None
    };
    Ok(LoadedEngines {
        turn_classifier: turn.is_some(),
        words_judge: words_judge.as_ref().map(|_| WORDS_JUDGE_MODEL.to_string()),
        voice_rate: voice.sample_rate(),
        voice: voice.name().to_string(),
        model: opts.model.clone(),
        vad,
        warnings,
        engines: Engines {
            detector: Box::new(detector),
            transcriber: Box::new(transcriber),
            chat: Box::new(chat),
            segmenter: Box::new(ReplySegmenter::default()),
            speaker: Box::new(VoiceSpeaker(voice)),
            turn,
            words_judge: words_judge.map(|j| Box::new(j) as Box<dyn super::ChatEngine>),
        },
    })
}

/// The words judge: [`WORDS_JUDGE_MODEL`] with the voice chat's system prompt, on one thread
/// (it runs beside the answering model's reply made ahead), never replying.
fn load_words_judge(store: &Store, chat: &VoiceChatConfig) -> Result<LlmChat, PipelineError> {
    let gguf = model_file(store, WORDS_JUDGE_MODEL)?;
    LlmChat::load_with(
        &gguf,
        VoiceChatConfig {
            threads: 1,
            context: 512,
            ..chat.clone()
        },
    )
    .map_err(|e| PipelineError::Engine(format!("end-of-turn model: {e}")))
}
