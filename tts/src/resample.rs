//! Sample-rate conversion of a whole clip: `pocket_signal`'s windowed-sinc resampler with the
//! filter the synthesizer's voices were checked with, behind the rate limits of this crate's API.

use crate::error::TtsError;
use pocket_signal::Filter;

/// Cut-off at 95% of the lower Nyquist; 24 zero crossings of that sinc on each side.
const FILTER: Filter = Filter {
    cutoff: 0.95,
    half_width: 24.0 / 0.95,
};

/// Lowest sample rate accepted, in or out, in Hz.
pub const MIN_SAMPLE_RATE: u32 = 4_000;
/// Highest sample rate accepted, in or out, in Hz.
pub const MAX_SAMPLE_RATE: u32 = 384_000;

/// Resamples mono `input` from `from` Hz to `to` Hz (both in `MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE`, so the
/// output is at most 96 times the input).
pub fn resample(input: &[f32], from: u32, to: u32) -> Result<Vec<f32>, TtsError> {
    for rate in [from, to] {
        if !(MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&rate) {
            return Err(TtsError::InvalidArgument(format!(
                "sample rate {rate} Hz is outside {MIN_SAMPLE_RATE}..={MAX_SAMPLE_RATE} Hz (from {from} to {to})"
            )));
        }
    }
    Ok(pocket_signal::resample(input, from, to, FILTER))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn sine(freq: f64, rate: u32, secs: f64) -> Vec<f32> {
        (0..(rate as f64 * secs) as usize)
            .map(|i| (2.0 * PI * freq * i as f64 / rate as f64).sin() as f32 * 0.5)
            .collect()
    }

    fn rms(x: &[f32]) -> f64 {
        (x.iter().map(|&s| (s as f64).powi(2)).sum::<f64>() / x.len() as f64).sqrt()
    }

    #[test]
    fn keeps_a_tone_in_band_and_removes_one_above_the_new_nyquist() {
        let tone = sine(1000.0, 22050, 0.5);
        let out = resample(&tone, 22050, 16000).expect("resample");
        assert_eq!(out.len(), 8000);
        let expect = sine(1000.0, 16000, 0.5);
        // Compare away from the edges.
        let err: f64 = out[200..7800]
            .iter()
            .zip(&expect[200..7800])
            .map(|(a, b)| (a - b).abs() as f64)
            .fold(0.0, f64::max);
        assert!(err < 0.01, "max error {err}");
        let high = sine(9500.0, 22050, 0.5); // above 8 kHz: must vanish
        let out = resample(&high, 22050, 16000).expect("resample");
        assert!(rms(&out[200..7800]) < 0.01 * rms(&high));
    }

    #[test]
    fn upsampling_and_bad_rates() {
        let tone = sine(440.0, 16000, 0.25);
        let out = resample(&tone, 16000, 48000).expect("resample");
        assert_eq!(out.len(), 12000);
        assert!((rms(&out[300..11700]) - rms(&tone)).abs() < 0.01);
        assert!(resample(&tone, 0, 16000).is_err());
        assert!(resample(&[], 22050, 16000).expect("empty").is_empty());
    }

    #[test]
    fn rates_outside_the_range_are_refused_before_allocating() {
        // 4294967295 Hz would reserve ~1e10 floats for this quarter second.
        let tone = sine(440.0, 16000, 0.25);
        for (from, to) in [
            (16000, u32::MAX),
            (16000, MAX_SAMPLE_RATE + 1),
            (1, 16000),
            (16000, 1),
        ] {
            match resample(&tone, from, to) {
                Err(TtsError::InvalidArgument(m)) => assert!(m.contains("Hz"), "{m}"),
                other => panic!("{from} -> {to}: {:?}", other.map(|v| v.len())),
            }
        }
        assert_eq!(
            resample(&tone, 16000, MIN_SAMPLE_RATE)
                .expect("4 kHz")
                .len(),
            1000
        );
    }

    #[test]
    fn common_and_odd_rates_agree_with_the_ideal() {
        // 22050 -> 16001 has 16001 filter phases, 22050 -> 16000 has 320.
        let tone = sine(700.0, 22050, 0.2);
        let a = resample(&tone, 22050, 16000).expect("table");
        let b = resample(&tone, 22050, 16001).expect("direct");
        let expect_a = sine(700.0, 16000, 0.2);
        let expect_b = sine(700.0, 16001, 0.2);
        for (out, want) in [(&a, &expect_a), (&b, &expect_b)] {
            let err = out[100..3000]
                .iter()
                .zip(&want[100..3000])
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max);
            assert!(err < 0.01, "{err}");
        }
    }
}
