//! Adapters over `pocket-asr`: its earshot-based `Vad` as the speech detector, and a Whisper
//! `AsrStream` as the transcriber (the pipeline's endpointer decides where utterances end).

use std::path::Path;
use std::sync::Arc;

use super::{EngineError, EngineResult, SpeechDetector, Transcriber};

/// `pocket_asr::Vad` (16 ms frames).
pub struct VadDetector(pocket_asr::Vad);

impl Default for VadDetector {
    fn default() -> Self {
        Self(pocket_asr::Vad::new())
    }
}

impl SpeechDetector for VadDetector {
    fn frame_len(&self) -> usize {
        pocket_asr::vad::FRAME
    }

    fn speech_probability(&mut self, frame: &[f32]) -> f32 {
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
}

impl WhisperTranscriber {
    /// Loads the model in `dir` (a CTranslate2 Whisper folder). The stream's own endpointer is
    /// set never to end an utterance before the pipeline's does. Without `partials` no partial
    /// transcripts are decoded (for runs faster than real time, where they cost only time).
    pub fn load(dir: &Path, threads: usize, partials: bool) -> EngineResult<Self> {
        let mut cfg = pocket_asr::RecognizerConfig {
            threads: threads.max(1),
            ..Default::default()
        };
        if !partials {
            cfg.partial_interval_ms = 3_600_000;
        }
        cfg.endpoint.end_silence_ms = 10_000;
        cfg.endpoint.max_utterance_ms = 30_000;
        let rec = pocket_asr::Recognizer::load(dir, cfg).map_err(EngineError::new)?;
        Ok(Self::new(&rec))
    }

    pub fn new(rec: &Arc<pocket_asr::Recognizer>) -> Self {
        Self {
            stream: rec.stream(),
        }
    }
}

impl Transcriber for WhisperTranscriber {
    fn begin(&mut self) {
        self.stream.reset();
    }

    fn accept(&mut self, samples: &[f32]) -> EngineResult<()> {
        self.stream.accept(samples);
        Ok(())
    }

    fn partial(&mut self) -> EngineResult<Option<String>> {
        Ok(self.stream.partial())
    }

    fn finish(&mut self) -> EngineResult<String> {
        let t = self.stream.finish().map_err(EngineError::new)?;
        Ok(if t.is_silence { String::new() } else { t.text })
    }
}
