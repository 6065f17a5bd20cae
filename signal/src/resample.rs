//! Streaming sample-rate conversion of mono audio by the exact rational ratio of the two rates
//! (no drift however long the stream), through the windowed-sinc taps of `filter.rs`. Output
//! sample `j` sits at input position `j * from / to`: the filter adds no delay. Not for audio
//! callbacks (it allocates as its history grows).

use crate::filter::{Filter, Taps};

/// Lowest rate the resampler takes, in Hz; lower ones are raised to it.
pub const MIN_RATE: u32 = 1_000;
/// Highest rate the resampler takes, in Hz; higher ones are lowered to it.
pub const MAX_RATE: u32 = 384_000;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Converts a mono stream from one rate to another, chunk by chunk: [`Resampler::process`]
/// emits every output whose filter window the input so far covers, [`Resampler::flush`] the
/// rest at the end of the stream (the input continued by silence).
#[derive(Debug, Clone)]
pub struct Resampler {
    from: u32,
    to: u32,
    /// Output step in input samples is `num / den` (`from / to`, reduced).
    num: u64,
    den: u64,
    taps: Taps,
    /// Input not yet fully consumed; `hist[0]` is input sample `base`.
    hist: Vec<f32>,
    base: u64,
    /// Next output sample index.
    out_pos: u64,
    /// The taps of one phase, for rates too odd for a table.
    scratch: Vec<f32>,
}

impl Resampler {
    /// A resampler from `from` Hz to `to` Hz through `filter`. Rates outside
    /// `MIN_RATE..=MAX_RATE` are clamped into it: callers that take a rate from their input
    /// check it first and say what is wrong with it.
    pub fn new(from: u32, to: u32, filter: Filter) -> Self {
        let from = from.clamp(MIN_RATE, MAX_RATE);
        let to = to.clamp(MIN_RATE, MAX_RATE);
        let g = gcd(u64::from(from), u64::from(to));
        let (num, den) = (u64::from(from) / g, u64::from(to) / g);
        Self {
            from,
            to,
            num,
            den,
            taps: Taps::new(filter, from, to, num, den),
            hist: Vec::new(),
            base: 0,
            out_pos: 0,
            scratch: Vec::new(),
        }
    }

    /// The input rate, in Hz.
    pub fn from_rate(&self) -> u32 {
        self.from
    }

    /// The output rate, in Hz.
    pub fn to_rate(&self) -> u32 {
        self.to
    }

    /// Converts `input`, appending the output samples to `out`.
    pub fn process(&mut self, input: &[f32], out: &mut Vec<f32>) {
        if self.num == self.den {
            out.extend_from_slice(input);
            return;
        }
        self.hist.extend_from_slice(input);
        self.drain(out, false);
    }

    /// Ends the stream: emits the outputs still held back for the filter's look-ahead, as if
    /// silence followed. Start a new stream with [`Resampler::reset`].
    pub fn flush(&mut self, out: &mut Vec<f32>) {
        if self.num != self.den {
            self.drain(out, true);
        }
    }

    /// Forgets the stream so far (e.g. after a device restart or a new reply).
    pub fn reset(&mut self) {
        self.hist.clear();
        self.base = 0;
        self.out_pos = 0;
    }

    fn drain(&mut self, out: &mut Vec<f32>, end: bool) {
        let half = self.taps.half as u64;
        let avail = self.base + self.hist.len() as u64;
        loop {
            // Output j sits at input position j * num / den.
            let i0 = self.out_pos * self.num / self.den;
            if i0 + half >= avail && !(end && i0 < avail) {
                break;
            }
            let first = i0 as i64 - half as i64 + 1 - self.base as i64;
            let hist = &self.hist;
            let acc = self
                .taps
                .with_row(self.out_pos % self.den, &mut self.scratch, |row| {
                    dot_at(row, hist, first)
                });
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

/// The taps of `row` against `hist` from index `first` on, input outside `hist` counting as
/// silence (the window reaches before the stream's start or past its end).
fn dot_at(row: &[f32], hist: &[f32], first: i64) -> f32 {
    let mut acc = 0f32;
    match usize::try_from(first) {
        Ok(start) if start + row.len() <= hist.len() => {
            for (c, x) in row.iter().zip(&hist[start..]) {
                acc += c * x;
            }
        }
        _ => {
            for (t, c) in row.iter().enumerate() {
                let idx = first + t as i64;
                if idx >= 0 && (idx as usize) < hist.len() {
                    acc += c * hist[idx as usize];
                }
            }
        }
    }
    acc
}

/// Converts a whole mono clip from `from` Hz to `to` Hz: `floor(len * to / from)` samples
/// (rates clamped as in [`Resampler::new`]).
pub fn resample(input: &[f32], from: u32, to: u32, filter: Filter) -> Vec<f32> {
    let mut r = Resampler::new(from, to, filter);
    let want = (input.len() as u64 * u64::from(r.to) / u64::from(r.from)) as usize;
    let mut out = Vec::with_capacity(want + 1);
    r.process(input, &mut out);
    r.flush(&mut out);
    out.truncate(want);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEECH: Filter = Filter {
        cutoff: 0.94,
        half_width: 16.0,
    };

    fn tone(freq: f64, rate: u32, n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| (2.0 * std::f64::consts::PI * freq * i as f64 / f64::from(rate)).sin() as f32)
            .collect()
    }

    fn max_err(out: &[f32], want: &[f32], lo: usize, hi: usize) -> f32 {
        out[lo..hi]
            .iter()
            .zip(&want[lo..hi])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max)
    }

    #[test]
    fn a_tone_survives_up_and_down_in_odd_chunks() {
        for (from, to) in [
            (44_100, 16_000),
            (16_000, 22_050),
            (22_050, 48_000),
            (48_000, 16_000),
        ] {
            let x = tone(440.0, from, from as usize / 2);
            let mut r = Resampler::new(from, to, SPEECH);
            let mut y = Vec::new();
            for chunk in x.chunks(333) {
                r.process(chunk, &mut y);
            }
            r.flush(&mut y);
            let want = tone(440.0, to, y.len());
            assert!(
                (y.len() as i64 - (to / 2) as i64).abs() <= 1,
                "{from}->{to}: {}",
                y.len()
            );
            let err = max_err(&y, &want, 100, y.len() - 100);
            assert!(err < 0.01, "{from}->{to}: max error {err}");
        }
    }

    #[test]
    fn chunking_does_not_change_the_output() {
        // 384 kHz -> 4 kHz steps 96 input samples per output: chunks far shorter than a step.
        let x = tone(300.0, 384_000, 38_400);
        let mut whole = Vec::new();
        Resampler::new(384_000, 4_000, SPEECH).process(&x, &mut whole);
        for chunk in [1, 7, 95, 96, 97, 5000] {
            let mut r = Resampler::new(384_000, 4_000, SPEECH);
            let mut y = Vec::new();
            for c in x.chunks(chunk) {
                r.process(c, &mut y);
            }
            assert_eq!(y, whole, "chunks of {chunk}");
        }
    }

    #[test]
    fn content_above_the_new_nyquist_is_removed() {
        let x = tone(11_000.0, 48_000, 24_000);
        let y = resample(&x, 48_000, 16_000, SPEECH);
        assert_eq!(y.len(), 8_000);
        let peak = y[100..7_900].iter().fold(0f32, |a, v| a.max(v.abs()));
        assert!(peak < 0.01, "{peak}");
    }

    #[test]
    fn odd_rates_compute_their_taps_and_agree_with_the_ideal() {
        // 16000 -> 383999 has 383999 phases of 2 * 16 taps: over the table's budget.
        let x = tone(700.0, 16_000, 800);
        let y = resample(&x, 16_000, 383_999, SPEECH);
        assert_eq!(y.len(), 19_199);
        let want = tone(700.0, 383_999, y.len());
        assert!(max_err(&y, &want, 1_000, 18_000) < 0.01);
    }

    #[test]
    fn same_rate_passes_through_and_reset_starts_afresh() {
        let x = tone(100.0, 16_000, 1000);
        assert_eq!(resample(&x, 16_000, 16_000, SPEECH), x);
        let mut r = Resampler::new(48_000, 16_000, SPEECH);
        let mut first = Vec::new();
        r.process(&x, &mut first);
        r.reset();
        let mut again = Vec::new();
        r.process(&x, &mut again);
        assert_eq!(first, again);
        let clamped = Resampler::new(0, u32::MAX, SPEECH);
        assert_eq!(
            (clamped.from_rate(), clamped.to_rate()),
            (MIN_RATE, MAX_RATE)
        );
    }
}
