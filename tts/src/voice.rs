//! The `Voice` trait every synthesizer implements, its statistics, and the shared text front
//! end (segment → normalize → voice) that streams chunks with a cancellation check between them.

use crate::error::TtsError;
use crate::normalize::normalize;
use crate::segment::{Segmenter, SegmenterConfig, spoken_len};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What one `synthesize` call did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SynthStats {
    /// Samples handed to `on_chunk`.
    pub samples: usize,
    /// Number of `on_chunk` calls.
    pub chunks: usize,
    /// Rate of the emitted samples.
    pub sample_rate: u32,
    /// From the call to the first chunk, if any chunk was emitted.
    pub first_chunk: Option<Duration>,
    /// Whole call.
    pub elapsed: Duration,
    /// Stopped early by the cancel flag or by `on_chunk` returning `Break`.
    pub cancelled: bool,
}

impl SynthStats {
    /// Seconds of audio emitted.
    pub fn audio_seconds(&self) -> f64 {
        if self.sample_rate == 0 {
            return 0.0;
        }
        self.samples as f64 / self.sample_rate as f64
    }

    /// Real-time factor: compute time / audio time (lower is faster); 0 when no audio.
    pub fn rtf(&self) -> f64 {
        let audio = self.audio_seconds();
        if audio == 0.0 {
            0.0
        } else {
            self.elapsed.as_secs_f64() / audio
        }
    }
}

/// A synthesizer: text in, f32 mono PCM out at [`Voice::sample_rate`], streamed.
///
/// Object safe, so the pipeline can hold a `Box<dyn Voice>` chosen at run time.
pub trait Voice: Send {
    /// Short name for logs (`piper:en_US-joe-medium`, `flite:kal16`).
    fn name(&self) -> &str;

    /// Rate of the samples `synthesize` emits.
    fn sample_rate(&self) -> u32;

    /// Normalizes `text`, cuts it as `cut` says and speaks it, emitting PCM chunks as soon as
    /// each is ready. `cancel` is checked between chunks, and `on_chunk` returning `Break`
    /// stops as well; both end the call with `Ok` and `cancelled = true`. Text with nothing
    /// speakable emits nothing.
    fn synthesize_cut(
        &mut self,
        text: &str,
        cut: Cut,
        cancel: &AtomicBool,
        on_chunk: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<SynthStats, TtsError>;

    /// Speaks a whole reply ([`Cut::Reply`]): the first chunk is a two- or three-word phrase
    /// so it comes fast, the next a clause; later chunks are sentences.
    fn synthesize(
        &mut self,
        text: &str,
        cancel: &AtomicBool,
        on_chunk: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<SynthStats, TtsError> {
        self.synthesize_cut(text, Cut::Reply, cancel, on_chunk)
    }

    /// Speaks a piece the caller already cut ([`Cut::Piece`], a streamed reply's segment).
    fn synthesize_piece(
        &mut self,
        text: &str,
        cancel: &AtomicBool,
        on_chunk: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<SynthStats, TtsError> {
        self.synthesize_cut(text, Cut::Piece, cancel, on_chunk)
    }
}

/// Synthesizes `text` and returns all samples (for files and tests).
pub fn speak_to_vec(voice: &mut dyn Voice, text: &str) -> Result<(Vec<f32>, SynthStats), TtsError> {
    let mut all = Vec::new();
    let never = AtomicBool::new(false);
    let stats = voice.synthesize(text, &never, &mut |chunk| {
        all.extend_from_slice(chunk);
        ControlFlow::Continue(())
    })?;
    Ok((all, stats))
}

/// One normalized piece of speakable text handed to a voice's back end.
pub(crate) trait SegmentSynth {
    /// Speaks one normalized segment, calling `emit` per chunk; stops when `emit` breaks.
    fn speak_segment(
        &mut self,
        text: &str,
        emit: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, TtsError>;
}

/// How a `synthesize` call cuts its text before synthesis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// A whole reply: a two- or three-word first phrase, a clause, then sentences, so the
    /// first audio comes fast.
    Reply,
    /// A piece someone already cut (the pipeline's segmenter): only sentence ends and the
    /// length bound cut it, since cutting it again adds a model run and a seam in the prosody.
    Piece,
}

impl Cut {
    fn config(self) -> SegmenterConfig {
        match self {
            Cut::Reply => SegmenterConfig::default(),
            Cut::Piece => SegmenterConfig {
                first_min_words: usize::MAX,
                first_max_words: 0,
                second_min_words: 0,
                second_max_words: 0,
                ..SegmenterConfig::default()
            },
        }
    }
}

/// The shared front end: segments `text` as `cut` says (each piece bounded in length),
/// normalizes each, and streams the back end's chunks.
pub(crate) fn drive(
    backend: &mut dyn SegmentSynth,
    sample_rate: u32,
    cut: Cut,
    text: &str,
    cancel: &AtomicBool,
    on_chunk: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
) -> Result<SynthStats, TtsError> {
    let start = Instant::now();
    let mut stats = SynthStats {
        sample_rate,
        ..SynthStats::default()
    };
    let mut segmenter = Segmenter::new(cut.config());
    let mut segments = segmenter.push(text);
    segments.extend(segmenter.flush());
    let spoken = segments
        .iter()
        .flat_map(|segment| within_bound(normalize(segment)));
    for spoken in spoken {
        if cancel.load(Ordering::Relaxed) {
            stats.cancelled = true;
            break;
        }
        if spoken.is_empty() {
            continue;
        }
        let mut emit = |chunk: &[f32]| {
            if chunk.is_empty() {
                return ControlFlow::Continue(());
            }
            if cancel.load(Ordering::Relaxed) {
                return ControlFlow::Break(());
            }
            stats.first_chunk.get_or_insert_with(|| start.elapsed());
            stats.samples += chunk.len();
            stats.chunks += 1;
            on_chunk(chunk)
        };
        if backend.speak_segment(&spoken, &mut emit)?.is_break() {
            stats.cancelled = true;
            break;
        }
    }
    stats.elapsed = start.elapsed();
    Ok(stats)
}

/// `spoken` (a normalized piece) in runs within a piece's bound (its pauses counted, as the
/// segmenter counts them), cut as a piece is.
/// Normalization writes numbers and symbols out ("1,250,000" becomes "one million two hundred
/// fifty thousand"), so a piece cut to the bound can come out longer, and one synthesis run's
/// memory grows with the audio it makes.
fn within_bound(spoken: String) -> Vec<String> {
    let config = Cut::Piece.config();
    if spoken_len(&spoken) <= config.max_chars {
        return vec![spoken];
    }
    let mut segmenter = Segmenter::new(config);
    let mut runs = segmenter.push(&spoken);
    runs.extend(segmenter.flush());
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_replies_get_lead_pieces() {
        let text = "The quick brown fox jumped over the lazy dog and into the woods.";
        let pieces = |cut: Cut| {
            let mut seg = Segmenter::new(cut.config());
            let mut out = seg.push(text);
            out.extend(seg.flush());
            out
        };
        assert_eq!(pieces(Cut::Piece), vec![text]);
        assert!(pieces(Cut::Reply).len() > 1);
    }

    #[test]
    fn a_piece_normalization_lengthens_is_cut_again() {
        let max = Cut::Piece.config().max_chars;
        let piece = "It cost 1,234,567 dollars in 1987 and 8,765,432 dollars in 2023.";
        assert!(piece.len() <= max);
        let spoken = normalize(piece);
        assert!(spoken.len() > max, "{spoken}");
        let runs = within_bound(spoken.clone());
        assert!(runs.len() > 1, "{runs:?}");
        assert!(runs.iter().all(|r| r.len() <= max), "{runs:?}");
        assert_eq!(runs.join(" "), spoken);
        assert_eq!(within_bound("Six strings.".into()), vec!["Six strings."]);
    }

    #[test]
    fn a_piece_whose_written_out_list_pauses_past_the_bound_is_cut_again() {
        let max = Cut::Piece.config().max_chars;
        let piece = "Take 1, 2, 3, 4, 5, 6, 7 and 8.";
        assert!(spoken_len(piece) <= max);
        let spoken = normalize(piece);
        // Within the bound in bytes, past it with the pauses of its commas.
        assert!(spoken.len() <= max, "{spoken}");
        assert!(spoken_len(&spoken) > max, "{spoken}");
        let runs = within_bound(spoken.clone());
        assert!(runs.len() > 1, "{runs:?}");
        assert!(runs.iter().all(|r| spoken_len(r) <= max), "{runs:?}");
        assert_eq!(runs.join(" "), spoken);
    }
}
