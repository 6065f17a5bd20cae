//! Recognizer configuration, validated once at load.

use crate::error::AsrError;
use crate::gemm::WeightFormat;
use crate::mel::SAMPLE_RATE;

/// Settings of a [`crate::Recognizer`]; `Default` gives the measured defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct RecognizerConfig {
    /// Compute threads (the calling thread counts as one).
    pub threads: usize,
    /// How fp16 weights are held: Q8_0 (default, requantized at load) or F16 as stored.
    pub weight_format: WeightFormat,
    /// Language code for multilingual models (`"en"`, `"de"`, ...); `None` means English.
    pub language: Option<String>,
    /// The encoder runs on the audio length; inputs shorter than this are padded with
    /// silence up to it (Whisper itself always pads to 30 s).
    pub min_input_ms: u32,
    /// Silence appended after the audio before encoding.
    pub tail_pad_ms: u32,
    /// Let the audio positions attend to a precomputed silent rest of the 30 s window
    /// (computed once at load), approximating Whisper's padded input at a fraction of its cost.
    pub virtual_window: bool,
    /// Log-mel value of the precomputed silence (Whisper's padding sits at `(max - 4) / 4`;
    /// speech at normal level puts it near -0.5).
    pub silence_floor: f32,
    /// Whisper's no-speech rule: text is dropped when `no_speech_prob` is above this...
    pub no_speech_threshold: f32,
    /// ...and the average token log-probability is below this.
    pub logprob_threshold: f32,
    /// Text is also dropped when `no_speech_prob` alone is above this: Whisper's confident
    /// "you" on digital silence has a high log-probability (speech clips stay below 0.1).
    pub no_speech_certain: f32,
    /// Cap on decoded tokens per second of audio (plus 8), against runaway repetition.
    pub max_tokens_per_second: f64,
    /// Voice activity detection and endpointing of streams.
    pub endpoint: crate::endpoint::EndpointConfig,
    /// Silero VAD weights (`silero_vad_16k.safetensors`, asset `silero-vad`): the more accurate
    /// VAD in noise. `None` uses the built-in earshot network.
    pub vad_model: Option<std::path::PathBuf>,
    /// How often a stream re-decodes its audio for a partial result, in ms of audio.
    pub partial_interval_ms: u32,
    /// Decode the final result during the end-silence wait (re-done if speech resumes), so
    /// `finish` after the endpoint returns at once.
    pub speculative_final: bool,
    /// Hypotheses of the beam search that decodes final results (1: greedy, as partials
    /// always are). Beam search hears more questions word for word, at a few decoder passes'
    /// cost (docs/PERFORMANCE.md).
    pub beam_size: usize,
    /// A final result is decoded greedily first (verifying the last partial, so it costs
    /// little) and searched again with the beam only when one of its tokens had less than this
    /// probability: 1.0 runs the beam search on every final, 0.0 never. At 0.4, a quarter of
    /// the spoken questions are searched and as many are heard word for word as with the beam
    /// on all of them (docs/PERFORMANCE.md).
    pub beam_below_p: f32,
    /// Earlier text the recognizer is given for utterances spoken over the assistant's reply
    /// ([`crate::Context::OverReply`]), so hums come out as hums; empty: the plain prompt.
    pub over_reply_text: String,
    /// Earlier text the recognizer is given for utterances spoken to a silent assistant
    /// ([`crate::Context::Plain`]); empty (the default): none. For a caller that knows what
    /// kind of speech comes: VoiceBench's multiple-choice subsets give
    /// [`crate::context::CHOICES_TEXT`], so spoken option letters are written as letters.
    pub plain_text: String,
}

impl Default for RecognizerConfig {
    fn default() -> Self {
        Self {
            threads: 2,
            weight_format: WeightFormat::Q8_0,
            language: None,
            min_input_ms: 0,
            tail_pad_ms: 0,
            virtual_window: true,
            silence_floor: -0.5,
            no_speech_threshold: 0.6,
            logprob_threshold: -1.0,
            no_speech_certain: 0.8,
            max_tokens_per_second: 12.0,
            endpoint: Default::default(),
            vad_model: None,
            partial_interval_ms: 500,
            speculative_final: true,
            beam_size: 5,
            beam_below_p: 0.4,
            over_reply_text: crate::context::OVER_REPLY_TEXT.to_string(),
            plain_text: String::new(),
        }
    }
}

impl RecognizerConfig {
    pub fn validate(&self) -> Result<(), AsrError> {
        let bad = |s: &str| Err(AsrError::BadConfig(s.to_string()));
        if self.threads == 0 || self.threads > 256 {
            return bad("threads must be 1..=256");
        }
        if self.min_input_ms > 30_000 || self.tail_pad_ms > 10_000 {
            return bad("min_input_ms must be at most 30000 and tail_pad_ms at most 10000");
        }
        if self.max_tokens_per_second.is_nan() || self.max_tokens_per_second <= 0.0 {
            return bad("max_tokens_per_second must be positive");
        }
        if !(1..=crate::whisper::beam::MAX_BEAM).contains(&self.beam_size) {
            return Err(AsrError::BadConfig(format!(
                "beam_size must be 1..={}",
                crate::whisper::beam::MAX_BEAM
            )));
        }
        if !(0.0..=1.0).contains(&self.beam_below_p) {
            return bad("beam_below_p must be 0.0..=1.0");
        }
        if self.partial_interval_ms < 100 {
            return bad("partial_interval_ms must be at least 100");
        }
        self.endpoint.validate()
    }

    /// How final results are searched for (`beam_size`, `beam_below_p`).
    pub fn final_search(&self) -> crate::Search {
        crate::Search {
            beam: self.beam_size,
            greedy_min_p: self.beam_below_p,
        }
    }

    /// Sets `beam_size` and `beam_below_p` from `search`.
    pub fn set_final_search(&mut self, search: crate::Search) {
        self.beam_size = search.beam;
        self.beam_below_p = search.greedy_min_p;
    }

    pub(crate) fn min_input_samples(&self) -> usize {
        self.min_input_ms as usize * SAMPLE_RATE / 1000
    }

    pub(crate) fn tail_pad_samples(&self) -> usize {
        self.tail_pad_ms as usize * SAMPLE_RATE / 1000
    }
}
