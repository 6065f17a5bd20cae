//! Streaming sample-rate conversion (windowed-sinc, polyphase table), for device rates ↔ 16 kHz
//! capture and voice rate → output rate. Not used in audio callbacks.

const HALF_TAPS: usize = 16;
const PHASES: usize = 256;

/// Converts a mono stream from one rate to another, chunk by chunk.
#[derive(Debug, Clone)]
pub struct Resampler {
    from: u32,
    to: u32,
    /// Input samples per output sample.
    step: f64,
    /// Position of the next output sample, in input samples relative to `hist[0]`.
    pos: f64,
    hist: Vec<f32>,
    /// `PHASES + 1` rows of `2 * HALF_TAPS` coefficients.
    table: Vec<f32>,
}

impl Resampler {
    pub fn new(from: u32, to: u32) -> Self {
        let from = from.max(1);
        let to = to.max(1);
        let step = from as f64 / to as f64;
        // Low-pass at the lower Nyquist, a little below to leave room for the transition band.
        let cutoff = 0.92 * (to as f64 / from as f64).min(1.0);
        let width = 2 * HALF_TAPS;
        let mut table = vec![0.0f32; (PHASES + 1) * width];
        for p in 0..=PHASES {
            let frac = p as f64 / PHASES as f64;
            let row = &mut table[p * width..(p + 1) * width];
            let mut sum = 0.0;
            for (j, c) in row.iter_mut().enumerate() {
                // Tap j sits at input offset (j - HALF_TAPS + 1) from floor(t); distance to t:
                let x = (j as f64 - HALF_TAPS as f64 + 1.0) - frac;
                let sinc = if x.abs() < 1e-9 {
                    1.0
                } else {
                    (std::f64::consts::PI * cutoff * x).sin() / (std::f64::consts::PI * cutoff * x)
                };
                let w = x / HALF_TAPS as f64;
                let window = if w.abs() >= 1.0 {
                    0.0
                } else {
                    // Blackman window over [-1, 1].
                    0.42 + 0.5 * (std::f64::consts::PI * w).cos()
                        + 0.08 * (2.0 * std::f64::consts::PI * w).cos()
                };
                let v = cutoff * sinc * window;
                *c = v as f32;
                sum += v;
            }
            for c in row.iter_mut() {
                *c /= sum as f32;
            }
        }
        Self {
            from,
            to,
            step,
            pos: (HALF_TAPS - 1) as f64,
            hist: vec![0.0; HALF_TAPS - 1],
            table,
        }
    }

    pub fn from_rate(&self) -> u32 {
        self.from
    }

    pub fn to_rate(&self) -> u32 {
        self.to
    }

    /// Converts `input`, appending the output samples to `out`.
    pub fn process(&mut self, input: &[f32], out: &mut Vec<f32>) {
        if self.from == self.to {
            out.extend_from_slice(input);
            return;
        }
        self.hist.extend_from_slice(input);
        let width = 2 * HALF_TAPS;
        // Output while the right half of the window is available.
        while self.pos + (HALF_TAPS as f64) < self.hist.len() as f64 {
            let base = self.pos.floor();
            let frac = self.pos - base;
            let start = base as usize + 1 - HALF_TAPS;
            let taps = &self.hist[start..start + width];
            let ph = frac * PHASES as f64;
            let p0 = ph.floor() as usize;
            let a = (ph - p0 as f64) as f32;
            let r0 = &self.table[p0 * width..(p0 + 1) * width];
            let r1 = &self.table[(p0 + 1) * width..(p0 + 2) * width];
            let mut acc = 0.0f32;
            for k in 0..width {
                acc += taps[k] * (r0[k] + a * (r1[k] - r0[k]));
            }
            out.push(acc);
            self.pos += self.step;
        }
        // Keep what the next window still needs. Downsampling in chunks shorter than a
        // step can leave the next position past all the history: drop it all, and `pos`
        // stays ahead by the rest (the input still to skip).
        let keep_from = (self.pos.floor() as usize + 1)
            .saturating_sub(HALF_TAPS)
            .min(self.hist.len());
        if keep_from > 0 {
            self.hist.drain(..keep_from);
            self.pos -= keep_from as f64;
        }
    }

    /// Forgets buffered input (e.g. after a stream restart).
    pub fn reset(&mut self) {
        self.hist.clear();
        self.hist.resize(HALF_TAPS - 1, 0.0);
        self.pos = (HALF_TAPS - 1) as f64;
    }
}

/// Converts a whole clip at once.
pub fn resample_all(input: &[f32], from: u32, to: u32) -> Vec<f32> {
    let mut r = Resampler::new(from, to);
    let mut out = Vec::with_capacity(input.len() * to as usize / from.max(1) as usize + 64);
    r.process(input, &mut out);
    // Flush the filter's look-ahead with silence.
    r.process(&[0.0; HALF_TAPS * 2], &mut out);
    let want = (input.len() as u64 * to as u64 / from.max(1) as u64) as usize;
    out.truncate(want);
    out
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
            let mut r = Resampler::new(from, to);
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
            let mut r = Resampler::new(384_000, 4_000);
            let mut y = Vec::new();
            for c in x.chunks(chunk) {
                r.process(c, &mut y);
            }
            let mut whole = Vec::new();
            Resampler::new(384_000, 4_000).process(&x, &mut whole);
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
