//! Sample-rate conversion with a windowed-sinc (Blackman) low-pass, any ratio.

use crate::error::TtsError;
use std::f64::consts::PI;

/// Half-width of the filter, in input samples at the cutoff frequency.
const HALF_TAPS: f64 = 24.0;

/// Resamples mono `input` from `from` Hz to `to` Hz.
pub fn resample(input: &[f32], from: u32, to: u32) -> Result<Vec<f32>, TtsError> {
    if from == 0 || to == 0 {
        return Err(TtsError::InvalidArgument(format!(
            "sample rates must be positive (from {from} to {to})"
        )));
    }
    if from == to || input.is_empty() {
        return Ok(input.to_vec());
    }
    let step = from as f64 / to as f64; // input samples per output sample
    let cutoff = (to as f64 / from as f64).min(1.0) * 0.95; // fraction of input Nyquist
    let half = HALF_TAPS / cutoff;
    let out_len = ((input.len() as u64 * to as u64) / from as u64) as usize;
    let mut out = Vec::with_capacity(out_len);
    for n in 0..out_len {
        let t = n as f64 * step;
        let lo = (t - half).ceil().max(0.0) as usize;
        let hi = ((t + half).floor() as usize).min(input.len() - 1);
        let mut acc = 0.0f64;
        for (k, &x) in input.iter().enumerate().take(hi + 1).skip(lo) {
            let d = t - k as f64;
            acc += x as f64 * kernel(d, cutoff, half);
        }
        out.push(acc as f32);
    }
    Ok(out)
}

/// Low-pass sinc at `cutoff` (of the input Nyquist) under a Blackman window of half-width `half`.
fn kernel(d: f64, cutoff: f64, half: f64) -> f64 {
    let x = PI * cutoff * d;
    let sinc = if d.abs() < 1e-9 { 1.0 } else { x.sin() / x };
    let blackman = 0.42 + 0.5 * (PI * d / half).cos() + 0.08 * (2.0 * PI * d / half).cos();
    cutoff * sinc * blackman
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
