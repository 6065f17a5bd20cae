//! Streaming conversion of any sample rate and channel count to 16 kHz mono: channels are
//! averaged, then a windowed-sinc (Blackman) low-pass interpolator with a precomputed
//! polyphase table resamples by the exact rational ratio, so no drift accumulates.

use crate::error::AsrError;
use crate::mel::SAMPLE_RATE;

/// Zero crossings of the sinc kept on each side (at the narrower of the two rates).
const HALF_ZEROS: usize = 16;

/// Streaming resampler to 16 kHz mono.
#[derive(Debug)]
pub struct Resampler {
    in_rate: u32,
    channels: u16,
    /// Output step in input samples is `num / den` (in_rate / out_rate, reduced).
    num: u64,
    den: u64,
    half: usize,
    /// `[den][2 * half]` filter taps per output phase.
    table: Vec<f32>,
    /// Mono input not yet fully consumed; `hist[0]` is input sample `base`.
    hist: Vec<f32>,
    base: u64,
    /// Next output sample index.
    out_pos: u64,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
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
        let g = gcd(u64::from(in_rate), SAMPLE_RATE as u64);
        let (num, den) = (u64::from(in_rate) / g, SAMPLE_RATE as u64 / g);
        // Cut-off just under the lower Nyquist; widen the kernel when downsampling.
        let ratio = (SAMPLE_RATE as f64 / f64::from(in_rate)).min(1.0);
        let cutoff = 0.94 * ratio;
        let half = ((HALF_ZEROS as f64 / ratio).ceil() as usize).max(1);
        let mut table = vec![0f32; den as usize * 2 * half];
        if num != den {
            for p in 0..den as usize {
                // Phase p: output lands at frac = (p * num mod den) / den past an input sample.
                let frac = ((p as u64 * num) % den) as f64 / den as f64;
                let row = &mut table[p * 2 * half..(p + 1) * 2 * half];
                for (t, v) in row.iter_mut().enumerate() {
                    // Tap t is input sample floor(x) - half + 1 + t.
                    let dist = t as f64 - (half as f64 - 1.0) - frac;
                    let x = dist * cutoff;
                    let sinc = if x.abs() < 1e-9 {
                        1.0
                    } else {
                        (std::f64::consts::PI * x).sin() / (std::f64::consts::PI * x)
                    };
                    let wpos = (dist / half as f64 + 1.0) / 2.0; // 0..1 across the kernel
                    let win = if (0.0..=1.0).contains(&wpos) {
                        0.42 - 0.5 * (2.0 * std::f64::consts::PI * wpos).cos()
                            + 0.08 * (4.0 * std::f64::consts::PI * wpos).cos()
                    } else {
                        0.0
                    };
                    *v = (cutoff * sinc * win) as f32;
                }
            }
        }
        Ok(Self {
            in_rate,
            channels,
            num,
            den,
            half,
            table,
            hist: Vec::new(),
            base: 0,
            out_pos: 0,
        })
    }

    pub fn in_rate(&self) -> u32 {
        self.in_rate
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
        let scale = 1.0 / ch as f32;
        if self.num == self.den {
            out.extend(
                input
                    .chunks_exact(ch)
                    .map(|f| f.iter().sum::<f32>() * scale),
            );
            return Ok(());
        }
        self.hist.extend(
            input
                .chunks_exact(ch)
                .map(|f| f.iter().sum::<f32>() * scale),
        );
        self.drain(out, false);
        Ok(())
    }

    /// Flushes the samples held back for the filter's look-ahead (end of stream).
    pub fn flush(&mut self, out: &mut Vec<f32>) {
        if self.num != self.den {
            self.drain(out, true);
        }
    }

    fn drain(&mut self, out: &mut Vec<f32>, end: bool) {
        let half = self.half as u64;
        let avail = self.base + self.hist.len() as u64;
        loop {
            // Output j sits at input position j * num / den.
            let pos_num = self.out_pos * self.num;
            let i0 = pos_num / self.den;
            if i0 + half >= avail && !(end && i0 < avail) {
                break;
            }
            let phase = (self.out_pos % self.den) as usize;
            let row = &self.table[phase * 2 * self.half..(phase + 1) * 2 * self.half];
            let first = i0 as i64 - half as i64 + 1;
            let mut acc = 0f32;
            for (t, &c) in row.iter().enumerate() {
                let idx = first + t as i64 - self.base as i64;
                if idx >= 0 && (idx as usize) < self.hist.len() {
                    acc += c * self.hist[idx as usize];
                }
            }
            out.push(acc);
            self.out_pos += 1;
        }
        // Drop input no future output needs.
        let next_first = (self.out_pos * self.num / self.den).saturating_sub(half);
        if next_first > self.base {
            let drop = ((next_first - self.base) as usize).min(self.hist.len());
            self.hist.drain(..drop);
            self.base += drop as u64;
        }
        if end {
            self.hist.clear();
        }
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
