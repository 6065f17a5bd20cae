//! Sample-rate conversion with a windowed-sinc (Blackman) low-pass, any ratio.

use crate::error::TtsError;
use std::f64::consts::PI;

/// Half-width of the filter, in input samples at the cutoff frequency.
const HALF_TAPS: f64 = 24.0;

/// Most filter phases precomputed; rates whose reduced ratio needs more are computed directly.
const MAX_PHASES: u64 = 4096;

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
    if from == to || input.is_empty() {
        return Ok(input.to_vec());
    }
    let g = gcd(from as u64, to as u64);
    let (num, den) = (from as u64 / g, to as u64 / g); // t = n * num / den input samples
    let cutoff = (to as f64 / from as f64).min(1.0) * 0.95; // fraction of input Nyquist
    let half = HALF_TAPS / cutoff;
    let taps = 2 * half.ceil() as usize + 1;
    let out_len = ((input.len() as u64 * den) / num) as usize;
    let mut out = Vec::with_capacity(out_len);
    // Polyphase table: for phase p (t = k + p/den), tap j weighs input[k - reach + j].
    let reach = half.ceil() as i64;
    let table: Option<Vec<f32>> = (den <= MAX_PHASES).then(|| {
        let mut t = Vec::with_capacity(den as usize * taps);
        for p in 0..den {
            let frac = p as f64 / den as f64;
            for j in 0..taps as i64 {
                let d = frac + (reach - j) as f64;
                t.push(if d.abs() < half {
                    kernel(d, cutoff, half) as f32
                } else {
                    0.0
                });
            }
        }
        t
    });
    let last = input.len() as i64 - 1;
    for n in 0..out_len as u64 {
        let pos = n * num;
        let (k, p) = ((pos / den) as i64, pos % den);
        let mut acc = 0.0f32;
        match &table {
            Some(table) => {
                let row = &table[p as usize * taps..(p as usize + 1) * taps];
                let first = k - reach;
                if first >= 0 && first + taps as i64 - 1 <= last {
                    let window = &input[first as usize..first as usize + taps];
                    acc = window.iter().zip(row).map(|(x, w)| x * w).sum();
                } else {
                    for (j, w) in row.iter().enumerate() {
                        let idx = first + j as i64;
                        if (0..=last).contains(&idx) {
                            acc += input[idx as usize] * w;
                        }
                    }
                }
            }
            None => {
                let t = pos as f64 / den as f64;
                let lo = (t - half).ceil().max(0.0) as i64;
                let hi = ((t + half).floor() as i64).min(last);
                let mut a = 0.0f64;
                for idx in lo..=hi {
                    a += input[idx as usize] as f64 * kernel(t - idx as f64, cutoff, half);
                }
                acc = a as f32;
            }
        }
        out.push(acc);
    }
    Ok(out)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
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
    fn table_and_direct_paths_agree() {
        // 22050 -> 16001 has 16001 phases: computed directly; 16000 uses the table.
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
