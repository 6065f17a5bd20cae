//! Adapters over `pocket-asr`: its `Vad` (Silero, or the built-in earshot) as the speech
//! detector, and a driven Whisper `AsrStream` as the transcriber. The capture actor's detector
//! and endpointer are the only ones a turn has: the stream decodes what it is given, a partial
//! when the recognizer actor asks, the final early at the pauses the capture actor hears, and
//! the final up to where that actor says the speech ended.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{EngineError, EngineResult, SpeechDetector, Transcriber};

/// `pocket_asr::Vad`: one probability per network window (16 ms earshot, 32 ms Silero).
pub struct VadDetector(pub pocket_asr::Vad);

impl Default for VadDetector {
    /// The built-in earshot network (no model file needed).
    fn default() -> Self {
        Self(pocket_asr::Vad::new())
    }
}

impl VadDetector {
    /// Silero from its weights file (`silero_vad_16k.safetensors`).
    pub fn silero(weights: &Path) -> EngineResult<Self> {
        pocket_asr::Vad::silero(weights)
            .map(Self)
            .map_err(EngineError::new)
    }
}

impl SpeechDetector for VadDetector {
    fn frame_len(&self) -> usize {
        self.0.window()
    }

    fn speech_probability(&mut self, frame: &[f32]) -> f32 {
        // A whole window gives one probability (reported for each of its 16 ms frames).
        let mut p = 0.0;
        self.0.accept(frame, |_, prob| p = prob);
        p
    }

    fn reset(&mut self) {
        self.0.reset();
    }
}

/// A Whisper recognizer's stream, one utterance at a time.
pub struct WhisperTranscriber {
    stream: pocket_asr::AsrStream,
    /// The speech end of the last early final handed out.
    early_seen: Option<u64>,
    /// Audio arrives at the pace it was spoken: partials and early finals are worth decoding.
    realtime: bool,
}

impl WhisperTranscriber {
    /// Loads the model in `dir` (a CTranslate2 Whisper folder) with the earshot VAD; see
    /// [`WhisperTranscriber::recognizer`].
    pub fn load(dir: &Path, threads: usize, realtime: bool) -> EngineResult<Self> {
        let search = pocket_asr::RecognizerConfig::default().final_search();
        Ok(Self::new(
            &Self::recognizer(dir, threads, None, search, "")?,
            realtime,
        ))
    }

    /// Loads a recognizer for the pipeline, with the VAD in `vad_model` (Silero weights;
    /// `None`: earshot) for the pipeline's speech detector (`rec.new_vad()`). Finals are
    /// searched for as `search` says (greedy, then a beam when greedy is unsure); `plain_text`
    /// is the earlier text of turns spoken to a silent assistant (`RecognizerConfig::plain_text`,
    /// empty for none).
    pub fn recognizer(
        dir: &Path,
        threads: usize,
        vad_model: Option<PathBuf>,
        search: pocket_asr::Search,
        plain_text: &str,
    ) -> EngineResult<Arc<pocket_asr::Recognizer>> {
        let mut cfg = pocket_asr::RecognizerConfig {
            threads: threads.max(1),
            vad_model,
            plain_text: plain_text.to_string(),
            ..Default::default()
        };
        cfg.set_final_search(search);
        pocket_asr::Recognizer::load(dir, cfg).map_err(EngineError::new)
    }

    /// A transcriber on `rec`. With `realtime` (audio arrives at the pace it was spoken) it
    /// decodes partial transcripts while the user speaks and the final at each pause; without
    /// it (faster-than-real-time input) only the final, once, at the end: earlier decodes
    /// would find the audio already moved on.
    pub fn new(rec: &Arc<pocket_asr::Recognizer>, realtime: bool) -> Self {
        Self {
            stream: rec.driven_stream(),
            early_seen: None,
            realtime,
        }
    }
}

/// The system prompt the hearings are scored after (the one `pocket_asr::hearing::LM_WEIGHT`
/// was chosen with).
pub const HEARING_SYSTEM_PROMPT: &str = "You are a helpful voice assistant.";

/// Threads of the hearing scorer's session: it runs at the pause, when the recognizer's
/// own decode is done and the reply waits for its words.
pub const HEARING_THREADS: usize = 2;

/// A language model's view of the recognizer's hearings of a final
/// ([`pocket_asr::hearing`]): the words judge's model scores each as a user's message.
pub struct LlmHearingScorer(pub pocket_llm::TextScorer);

impl pocket_asr::hearing::HearingScorer for LlmHearingScorer {
    fn log_prob(&mut self, text: &str) -> Option<(f32, usize)> {
        let s = self.0.log_prob(text).ok().flatten()?;
        Some((s.sum as f32, s.tokens))
    }
}

impl WhisperTranscriber {
    /// Finals the beam searched (greedy was unsure) become the hearing `scorer` and the
    /// recognizer together find likeliest (`pocket_asr::hearing::choose`).
    pub fn with_hearing_scorer(mut self, scorer: LlmHearingScorer) -> Self {
        self.stream.set_hearing_scorer(Box::new(scorer));
        self
    }
}

impl Transcriber for WhisperTranscriber {
    fn begin(&mut self) {
        self.stream.reset();
        self.early_seen = None;
    }

    fn over_reply(&mut self) {
        self.stream.set_context(pocket_asr::Context::OverReply);
    }

    fn continue_previous(&mut self) -> bool {
        self.stream.continue_previous()
    }

    fn accept(&mut self, samples: &[f32]) -> EngineResult<()> {
        self.stream.accept(samples);
        Ok(())
    }

    fn partial(&mut self) -> EngineResult<Option<String>> {
        Ok(self.realtime.then(|| self.stream.partial_now()).flatten())
    }

    fn early_final(&mut self) -> Option<String> {
        let (end, text) = self.stream.early_final()?;
        if self.early_seen == Some(end) || text.trim().is_empty() {
            return None;
        }
        self.early_seen = Some(end);
        Some(text.trim().to_string())
    }

    fn early_final_now(&mut self) -> Option<String> {
        if !self.realtime {
            return None;
        }
        self.stream.speculate_now()?;
        self.early_final()
    }

    fn early_final_last_word_p(&self) -> f32 {
        self.stream.early_final_last_word_p()
    }

    fn speech_resumed(&mut self) {
        self.stream.speech_resumed();
    }

    fn speech_ended(&mut self, silence: Duration) {
        self.stream.speech_ended(silence.as_millis() as u64 * 16);
    }

    fn finish(&mut self) -> EngineResult<String> {
        let t = self.stream.finish().map_err(EngineError::new)?;
        Ok(if t.is_silence { String::new() } else { t.text })
    }
}
