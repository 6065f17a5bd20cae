//! The classifier's input: the last 8 s of the turn (zero-padded at the front when shorter),
//! normalized to zero mean and unit variance as a whole, then Whisper's log-mel spectrogram
//! (80 Slaney bins, n_fft 400, hop 160: 800 frames) from the recognizer's own front end.
//!
//! This is what Smart Turn v3 was trained on (Hugging Face's `WhisperFeatureExtractor` with
//! `do_normalize=True` and an 8 s chunk). The one difference from the recognizer's input is
//! the waveform normalization before the spectrogram; the log-mel steps themselves (reflect
//! padding, periodic Hann window, power spectrum, log10 with a floor 8 decades under the peak,
//! `(x + 4) / 4`, the last frame dropped) are the same, so `pocket_asr::mel` serves both.

use pocket_asr::mel::{HOP, MelExtractor, N_MELS, SAMPLE_RATE};

/// Samples the classifier sees: 8 s at 16 kHz.
pub const WINDOW: usize = 8 * SAMPLE_RATE;
/// Frames of the log-mel input.
pub const FRAMES: usize = WINDOW / HOP;
/// The input tensor's shape, `[batch, mel bins, frames]`.
pub const INPUT_SHAPE: [usize; 3] = [1, N_MELS, FRAMES];

/// Added to the variance before dividing (as the reference extractor does).
const VARIANCE_EPS: f64 = 1e-7;

/// Reusable feature extractor (FFT plan and buffers).
#[derive(Debug, Default)]
pub struct Features {
    mel: MelExtractor,
    wave: Vec<f32>,
    out: Vec<f32>,
}

impl Features {
    pub fn new() -> Self {
        Self::default()
    }

    /// The log-mel input for `audio` (16 kHz mono, the turn so far), laid out `[80][800]`.
    pub fn compute(&mut self, audio: &[f32]) -> &[f32] {
        let tail = &audio[audio.len().saturating_sub(WINDOW)..];
        self.wave.clear();
        self.wave.resize(WINDOW - tail.len(), 0.0);
        // NaN or infinite samples (a broken input device) count as silence.
        self.wave
            .extend(tail.iter().map(|&s| if s.is_finite() { s } else { 0.0 }));
        normalize(&mut self.wave);
        let frames = self.mel.compute(&self.wave, &mut self.out);
        debug_assert_eq!(frames, FRAMES);
        &self.out
    }
}

/// Zero mean, unit variance over the whole window (padding included), in place.
fn normalize(x: &mut [f32]) {
    let n = x.len().max(1) as f64;
    let mean = x.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    let var = x
        .iter()
        .map(|&v| (f64::from(v) - mean).powi(2))
        .sum::<f64>()
        / n;
    let scale = 1.0 / (var + VARIANCE_EPS).sqrt();
    for v in x.iter_mut() {
        *v = ((f64::from(*v) - mean) * scale) as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_audio_is_padded_at_the_front_and_long_audio_keeps_its_end() {
        let mut f = Features::new();
        // A tone in the last second only: the first 700 frames are the (normalized) padding.
        let tone: Vec<f32> = (0..SAMPLE_RATE)
            .map(|i| (i as f32 * 0.2).sin() * 0.3)
            .collect();
        let out = f.compute(&tone).to_vec();
        assert_eq!(out.len(), N_MELS * FRAMES);
        let frame_energy = |t: usize| (0..N_MELS).map(|m| out[m * FRAMES + t]).sum::<f32>();
        assert!(frame_energy(750) > frame_energy(100) + 10.0);
        // 10 s of audio: only its last 8 s count, so a first-second burst is gone.
        let mut long = vec![0.5f32; SAMPLE_RATE];
        long.extend(std::iter::repeat_n(0.0, 9 * SAMPLE_RATE));
        long[9 * SAMPLE_RATE..].copy_from_slice(&tone);
        let mut only_end = vec![0.0f32; WINDOW - SAMPLE_RATE];
        only_end.extend_from_slice(&tone);
        let a = f.compute(&long).to_vec();
        let b = f.compute(&only_end).to_vec();
        assert_eq!(a, b);
    }

    #[test]
    fn silence_and_bad_samples_do_not_blow_up() {
        let mut f = Features::new();
        assert!(f.compute(&[]).iter().all(|v| v.is_finite()));
        let bad = [f32::NAN, f32::INFINITY, 0.1, -0.1];
        assert!(f.compute(&bad).iter().all(|v| v.is_finite()));
    }
}
