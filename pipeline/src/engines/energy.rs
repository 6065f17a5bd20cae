//! A frame-energy speech detector, used only by the pipeline's tests (scenarios, harness,
//! mocks). It is not the loop's fallback: without Silero's weights `load_default` falls back to
//! earshot (`pocket_asr::Vad`, see `engines/default.rs`). Speech = frame RMS above a threshold
//! in dBFS.

use super::SpeechDetector;

/// Energy threshold detector over 10 ms frames at 16 kHz.
#[derive(Debug, Clone)]
pub struct EnergyDetector {
    threshold_dbfs: f32,
}

impl EnergyDetector {
    /// Frames louder than `threshold_dbfs` (e.g. -40.0) count as speech.
    pub fn new(threshold_dbfs: f32) -> Self {
        Self { threshold_dbfs }
    }
}

/// RMS level of `frame` in dBFS (-120 for silence).
pub fn level_dbfs(frame: &[f32]) -> f32 {
    if frame.is_empty() {
        return -120.0;
    }
    let energy = frame.iter().map(|s| s * s).sum::<f32>() / frame.len() as f32;
    (10.0 * energy.max(1e-12).log10()).max(-120.0)
}

impl SpeechDetector for EnergyDetector {
    fn frame_len(&self) -> usize {
        160
    }

    fn speech_probability(&mut self, frame: &[f32]) -> f32 {
        if level_dbfs(frame) > self.threshold_dbfs {
            1.0
        } else {
            0.0
        }
    }

    fn reset(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loud_frames_are_speech_quiet_ones_are_not() {
        let mut d = EnergyDetector::new(-40.0);
        let loud: Vec<f32> = (0..160).map(|i| 0.3 * (i as f32 * 0.2).sin()).collect();
        let quiet: Vec<f32> = loud.iter().map(|s| s * 0.001).collect();
        assert_eq!(d.speech_probability(&loud), 1.0);
        assert_eq!(d.speech_probability(&quiet), 0.0);
        assert_eq!(level_dbfs(&[]), -120.0);
        assert_eq!(level_dbfs(&[0.0; 160]), -120.0);
    }
}
