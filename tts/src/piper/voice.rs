//! `PiperVoice`: espeak-ng phonemes → Piper ids → VITS on ONNX Runtime, one sentence per run.

use super::config::PiperConfig;
use super::model::PiperModel;
use crate::error::TtsError;
use crate::phonemize::Phonemizer;
use crate::voice::{Cut, SegmentSynth, SynthStats, Voice, drive};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// Load-time options of a Piper voice.
#[derive(Debug, Clone, PartialEq)]
pub struct PiperOptions {
    /// ONNX Runtime intra-op threads.
    pub intra_threads: usize,
    /// Speaking rate: > 1 slower, < 1 faster; `None` keeps the voice's own.
    pub length_scale: Option<f32>,
}

impl Default for PiperOptions {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        PiperOptions {
            intra_threads: cores.clamp(1, 4),
            length_scale: None,
        }
    }
}

/// A Piper voice (any, given its `.onnx` and `.onnx.json`).
pub struct PiperVoice {
    name: String,
    config: PiperConfig,
    backend: Backend,
}

struct Backend {
    model: PiperModel,
    phonemizer: Phonemizer,
    scales: [f32; 3],
    id_map: PiperConfig,
    // Buffers reused across sentences so the hot path does not allocate once warm.
    sentences: Vec<String>,
    ids: Vec<i64>,
    pcm: Vec<f32>,
}

impl PiperVoice {
    /// Loads a Piper voice with default options (threads = cores, up to 4).
    pub fn load(onnx: &Path, config_json: &Path, ort_library: &Path) -> Result<Self, TtsError> {
        Self::load_with(onnx, config_json, ort_library, &PiperOptions::default())
    }

    /// Loads a Piper voice: reads the config, loads ONNX Runtime from `ort_library` (once per
    /// process), builds the session and the espeak-ng phonemizer for the voice's language.
    pub fn load_with(
        onnx: &Path,
        config_json: &Path,
        ort_library: &Path,
        options: &PiperOptions,
    ) -> Result<Self, TtsError> {
        let config = PiperConfig::load(config_json)?;
        if let Some(ls) = options.length_scale
            && !(ls > 0.0 && ls < 10.0)
        {
            return Err(TtsError::InvalidArgument(format!("length_scale {ls}")));
        }
        let phonemizer = Phonemizer::new(&config.espeak_voice)?;
        let model = PiperModel::load(onnx, ort_library, options.intra_threads)?;
        let scales = [
            config.noise_scale,
            options.length_scale.unwrap_or(config.length_scale),
            config.noise_w,
        ];
        let stem = onnx
            .file_name()
            .and_then(|n| n.to_str())
            .map_or("voice", |n| n.trim_end_matches(".onnx"));
        Ok(PiperVoice {
            name: format!("piper:{stem}"),
            backend: Backend {
                model,
                phonemizer,
                scales,
                id_map: config.clone(),
                sentences: Vec::new(),
                ids: Vec::new(),
                pcm: Vec::new(),
            },
            config,
        })
    }

    /// The voice's config.
    pub fn config(&self) -> &PiperConfig {
        &self.config
    }

    /// Runs one already-phonemized sentence (no text front end); for tests and benchmarks.
    pub fn synthesize_phonemes(
        &mut self,
        phonemes: &str,
        sink: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<(), TtsError> {
        self.backend.speak_phonemes(phonemes, sink).map(|_| ())
    }
}

impl Backend {
    fn speak_phonemes(
        &mut self,
        phonemes: &str,
        emit: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, TtsError> {
        self.id_map.phonemes_to_ids(phonemes, &mut self.ids);
        let pcm = &mut self.pcm;
        self.model.infer(&self.ids, self.scales, &mut |samples| {
            pcm.clear();
            pcm.extend_from_slice(samples);
        })?;
        peak_normalize(&mut self.pcm);
        Ok(emit(&self.pcm))
    }
}

/// Scales to full range and clips, as piper-tts does by default (`normalize_audio`).
fn peak_normalize(pcm: &mut [f32]) {
    let peak = pcm.iter().fold(0.0f32, |m, &s| m.max(s.abs()));
    if peak < 1e-8 || !peak.is_finite() {
        pcm.iter_mut().for_each(|s| *s = 0.0);
        return;
    }
    let gain = 1.0 / peak;
    for s in pcm.iter_mut() {
        *s = if s.is_finite() {
            (*s * gain).clamp(-1.0, 1.0)
        } else {
            0.0
        };
    }
}

impl SegmentSynth for Backend {
    fn speak_segment(
        &mut self,
        text: &str,
        emit: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, TtsError> {
        let mut sentences = std::mem::take(&mut self.sentences);
        sentences.clear();
        let result = (|| {
            self.phonemizer.phonemize(text, &mut sentences)?;
            for s in &sentences {
                if self.speak_phonemes(s, emit)?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            Ok(ControlFlow::Continue(()))
        })();
        self.sentences = sentences;
        result
    }
}

impl Voice for PiperVoice {
    fn name(&self) -> &str {
        &self.name
    }

    fn sample_rate(&self) -> u32 {
        self.config.sample_rate
    }

    fn synthesize_cut(
        &mut self,
        text: &str,
        cut: Cut,
        cancel: &AtomicBool,
        on_chunk: &mut dyn FnMut(&[f32]) -> ControlFlow<()>,
    ) -> Result<SynthStats, TtsError> {
        let rate = self.config.sample_rate;
        drive(&mut self.backend, rate, cut, text, cancel, on_chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_normalize_scales_and_silences() {
        let mut v = vec![0.25, -0.5, 0.1];
        peak_normalize(&mut v);
        assert_eq!(v, vec![0.5, -1.0, 0.2]);
        let mut z = vec![0.0; 4];
        peak_normalize(&mut z);
        assert_eq!(z, vec![0.0; 4]);
        let mut nan = vec![f32::NAN, 0.5];
        peak_normalize(&mut nan);
        assert!(nan.iter().all(|s| s.is_finite()));
    }
}
