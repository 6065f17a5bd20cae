//! Adapters over `pocket-tts`: any `Voice` as the pipeline's `Speaker`, and its `Segmenter` as
//! the cut between streamed reply text and synthesis.

use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;

use super::{EngineError, EngineResult, Speaker, TextSegmenter};

/// A `pocket_tts::Voice` (Piper, or the fallback voice) as a `Speaker`.
pub struct VoiceSpeaker(pub Box<dyn pocket_tts::Voice>);

impl Speaker for VoiceSpeaker {
    fn sample_rate(&self) -> u32 {
        self.0.sample_rate()
    }

    fn synthesize(
        &mut self,
        text: &str,
        cancel: &AtomicBool,
        on_chunk: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> EngineResult<()> {
        // The pipeline's segmenter already cut the reply: speak each piece as it is.
        self.0
            .synthesize_piece(text, cancel, on_chunk)
            .map(|_| ())
            .map_err(EngineError::new)
    }
}

/// `pocket_tts::Segmenter`: a short first clause early, then whole sentences.
pub struct ReplySegmenter(pub pocket_tts::Segmenter);

impl Default for ReplySegmenter {
    fn default() -> Self {
        Self(pocket_tts::Segmenter::new(
            pocket_tts::SegmenterConfig::default(),
        ))
    }
}

impl TextSegmenter for ReplySegmenter {
    fn push(&mut self, text: &str, out: &mut Vec<String>) {
        out.extend(self.0.push(text));
    }

    fn flush(&mut self) -> Option<String> {
        self.0.flush()
    }

    fn reset(&mut self) {
        self.0.reset();
    }

    fn cut_due_piece(&mut self) -> Option<String> {
        self.0.cut_due_piece()
    }
}
