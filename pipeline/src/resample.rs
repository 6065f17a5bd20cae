//! The voice loop's sample-rate conversions — device rate → 16 kHz capture, voice rate →
//! output rate, output rate → 16 kHz echo reference, WAV files — all through `pocket_signal`'s
//! streaming resampler with the loop's filter. Not used in audio callbacks.

use pocket_signal::Filter;
pub use pocket_signal::Resampler;

/// Cut-off at 92% of the lower Nyquist; 16 samples of the lower rate on each side.
pub const FILTER: Filter = Filter {
    cutoff: 0.92,
    half_width: 16.0,
};

/// A streaming resampler from `from` Hz to `to` Hz with the loop's filter (rates outside
/// `pocket_signal::MIN_RATE..=MAX_RATE` are clamped into it).
pub fn new_resampler(from: u32, to: u32) -> Resampler {
    Resampler::new(from, to, FILTER)
}

/// Converts a whole clip at once: `floor(len * to / from)` samples.
pub fn resample_all(input: &[f32], from: u32, to: u32) -> Vec<f32> {
    pocket_signal::resample(input, from, to, FILTER)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(freq: f32, rate: u32, n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| (2.0 * std::f32::consts::PI * freq * i as f32 / rate as f32).sin())
            .collect()
    }

    fn rms(x: &[f32]) -> f32 {
        (x.iter().map(|s| s * s).sum::<f32>() / x.len() as f32).sqrt()
    }

    #[test]
    fn tone_survives_up_and_down_conversion() {
        for (from, to) in [
            (22_050, 48_000),
            (48_000, 16_000),
            (44_100, 16_000),
            (16_000, 22_050),
        ] {
            let x = tone(440.0, from, from as usize / 2);
            // Streamed in odd-sized chunks.
            let mut r = new_resampler(from, to);
            let mut y = Vec::new();
            for chunk in x.chunks(333) {
                r.process(chunk, &mut y);
            }
            let expect = x.len() as f64 * to as f64 / from as f64;
            assert!(
                (y.len() as f64 - expect).abs() < 40.0,
                "{from}->{to}: {}",
                y.len()
            );
            // Compare against the ideal tone at the new rate (the filter adds no delay).
            let ideal: Vec<f32> = (0..y.len())
                .map(|i| {
                    let t = i as f64 / to as f64;
                    (2.0 * std::f64::consts::PI * 440.0 * t).sin() as f32
                })
                .collect();
            let lo = 64;
            let hi = y.len() - 64;
            let err: Vec<f32> = (lo..hi).map(|i| y[i] - ideal[i]).collect();
            assert!(rms(&err) < 0.01, "{from}->{to}: error rms {}", rms(&err));
        }
    }

    #[test]
    fn downsampling_removes_content_above_the_new_nyquist() {
        let x = tone(11_000.0, 48_000, 24_000);
        let y = resample_all(&x, 48_000, 16_000);
        assert!(rms(&y[100..y.len() - 100]) < 0.01);
    }

    #[test]
    fn downsampling_in_chunks_shorter_than_a_step() {
        // Found by the wav_in fuzz target: 384 kHz -> 4 kHz is a step of 96 input samples;
        // chunks of a few samples left the next position past the history and `drain`
        // panicked. The output must match the whole-clip conversion.
        let x = tone(300.0, 384_000, 38_400);
        for chunk in [1, 7, 95, 96, 97] {
            let mut r = new_resampler(384_000, 4_000);
            let mut y = Vec::new();
            for c in x.chunks(chunk) {
                r.process(c, &mut y);
            }
            let mut whole = Vec::new();
            new_resampler(384_000, 4_000).process(&x, &mut whole);
            assert_eq!(y.len(), whole.len(), "chunks of {chunk}");
            assert!(y.iter().zip(&whole).all(|(a, b)| (a - b).abs() < 1e-5));
        }
    }

    #[test]
    fn same_rate_passes_through() {
        let x = tone(100.0, 16_000, 1000);
        assert_eq!(resample_all(&x, 16_000, 16_000), x);
    }
}
