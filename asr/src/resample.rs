//! Streaming conversion of any sample rate and channel count to 16 kHz mono: channels are
//! averaged, then `pocket_signal`'s windowed-sinc resampler converts by the exact rational
//! ratio (no drift) with the filter the recognizer was tuned with.

use pocket_signal::Filter;

use crate::error::AsrError;
use crate::mel::SAMPLE_RATE;

/// Cut-off at 94% of the lower Nyquist; 16 samples of the lower rate on each side.
const FILTER: Filter = Filter {
    cutoff: 0.94,
    half_width: 16.0,
};

/// Streaming resampler to 16 kHz mono.
#[derive(Debug)]
pub struct Resampler {
    channels: u16,
    inner: pocket_signal::Resampler,
    /// The current chunk, down-mixed.
    mono: Vec<f32>,
}

impl Resampler {
    /// A resampler from `in_rate` Hz with `channels` interleaved channels.
    pub fn new(in_rate: u32, channels: u16) -> Result<Self, AsrError> {
        if !(1000..=384_000).contains(&in_rate) {
            return Err(AsrError::BadAudio(format!(
                "sample rate {in_rate} Hz is outside 1000..=384000"
            )));
        }
        if channels == 0 || channels > 64 {
            return Err(AsrError::BadAudio(format!(
                "{channels} channels is not supported (1..=64)"
            )));
        }
        Ok(Self {
            channels,
            inner: pocket_signal::Resampler::new(in_rate, SAMPLE_RATE as u32, FILTER),
            mono: Vec::new(),
        })
    }

    pub fn in_rate(&self) -> u32 {
        self.inner.from_rate()
    }

    pub fn channels(&self) -> u16 {
        self.channels
    }

    /// Converts interleaved `input` and appends 16 kHz mono samples to `out`. A trailing
    /// partial frame (fewer samples than channels) is an error.
    pub fn process(&mut self, input: &[f32], out: &mut Vec<f32>) -> Result<(), AsrError> {
        let ch = usize::from(self.channels);
        if !input.len().is_multiple_of(ch) {
            return Err(AsrError::BadAudio(format!(
                "{} samples is not a whole number of {ch}-channel frames",
                input.len()
            )));
        }
        if ch == 1 {
            self.inner.process(input, out);
            return Ok(());
        }
        self.mono.clear();
        pocket_signal::downmix(input, self.channels, &mut self.mono);
        self.inner.process(&self.mono, out);
        Ok(())
    }

    /// Flushes the samples held back for the filter's look-ahead (end of stream).
    pub fn flush(&mut self, out: &mut Vec<f32>) {
        self.inner.flush(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(rate: u32, hz: f32, secs: f32) -> Vec<f32> {
        (0..(rate as f32 * secs) as usize)
            .map(|i| (2.0 * std::f32::consts::PI * hz * i as f32 / rate as f32).sin() * 0.5)
            .collect()
    }

    #[test]
    fn tones_survive_common_rates_in_chunks() {
        for rate in [8_000u32, 22_050, 44_100, 48_000] {
            let input = tone(rate, 440.0, 1.0);
            let mut r = Resampler::new(rate, 1).expect("rate");
            let mut out = Vec::new();
            for c in input.chunks(1234) {
                r.process(c, &mut out).expect("process");
            }
            r.flush(&mut out);
            let want = tone(16_000, 440.0, 1.0);
            assert!(
                (out.len() as i64 - 16_000).abs() <= 2,
                "{rate}: {} samples",
                out.len()
            );
            // Compare the middle (edges see the zero history).
            let err = out[400..15_000]
                .iter()
                .zip(&want[400..15_000])
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            assert!(err < 0.01, "{rate} Hz: max error {err}");
        }
    }

    #[test]
    fn stereo_is_averaged_and_high_frequencies_removed() {
        let left = tone(48_000, 300.0, 0.5);
        let inter: Vec<f32> = left.iter().flat_map(|&s| [s, s]).collect();
        let mut r = Resampler::new(48_000, 2).expect("rate");
        let mut out = Vec::new();
        r.process(&inter, &mut out).expect("stereo");
        assert!(out[1000..7000].iter().fold(0f32, |a, v| a.max(v.abs())) > 0.45);
        // 12 kHz is above the 8 kHz Nyquist of the output: it must be filtered out.
        let hi = tone(48_000, 12_000.0, 0.5);
        let mut r = Resampler::new(48_000, 1).expect("rate");
        let mut out = Vec::new();
        r.process(&hi, &mut out).expect("mono");
        assert!(out[1000..7000].iter().fold(0f32, |a, v| a.max(v.abs())) < 0.01);
        assert!(r.process(&[0.0; 3], &mut out).is_ok());
        let mut r2 = Resampler::new(44_100, 2).expect("rate");
        assert!(r2.process(&[0.0; 3], &mut out).is_err());
        assert!(Resampler::new(0, 1).is_err());
    }
}
