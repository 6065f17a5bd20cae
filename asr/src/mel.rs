//! Whisper's log-mel front end: 16 kHz, 25 ms Hann window (n_fft 400), 10 ms hop,
//! 80 Slaney-scale mel bins (librosa's formula), log10 with a floor 8 decades under the peak,
//! scaled as `(x + 4) / 4`.

use std::sync::Arc;

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

/// Sample rate the front end (and the whole recognizer) works at.
pub const SAMPLE_RATE: usize = 16_000;
/// FFT size / window length in samples (25 ms).
pub const N_FFT: usize = 400;
/// Hop between frames in samples (10 ms).
pub const HOP: usize = 160;
/// Number of mel bins of the Whisper models handled here.
pub const N_MELS: usize = 80;
/// Number of FFT bins kept (0 ..= n_fft/2).
const N_BINS: usize = N_FFT / 2 + 1;

/// Slaney mel filterbank, `[N_MELS][N_BINS]` row-major, computed with librosa's formula
/// (`librosa.filters.mel(sr=16000, n_fft=400, n_mels=80)`, `htk=False`, `norm="slaney"`).
pub fn mel_filterbank() -> Vec<f32> {
    fn hz_to_mel(f: f64) -> f64 {
        let f_sp = 200.0 / 3.0;
        let (min_log_hz, min_log_mel) = (1000.0, 1000.0 / f_sp);
        let logstep = 6.4f64.ln() / 27.0;
        if f >= min_log_hz {
            min_log_mel + (f / min_log_hz).ln() / logstep
        } else {
            f / f_sp
        }
    }
    fn mel_to_hz(m: f64) -> f64 {
        let f_sp = 200.0 / 3.0;
        let (min_log_hz, min_log_mel) = (1000.0, 1000.0 / f_sp);
        let logstep = 6.4f64.ln() / 27.0;
        if m >= min_log_mel {
            min_log_hz * (logstep * (m - min_log_mel)).exp()
        } else {
            f_sp * m
        }
    }
    let sr = SAMPLE_RATE as f64;
    let fft_freqs: Vec<f64> = (0..N_BINS).map(|k| k as f64 * sr / N_FFT as f64).collect();
    let (lo, hi) = (hz_to_mel(0.0), hz_to_mel(sr / 2.0));
    let mel_f: Vec<f64> = (0..N_MELS + 2)
        .map(|i| mel_to_hz(lo + (hi - lo) * i as f64 / (N_MELS + 1) as f64))
        .collect();
    let mut w = vec![0f32; N_MELS * N_BINS];
    for m in 0..N_MELS {
        let (f0, f1, f2) = (mel_f[m], mel_f[m + 1], mel_f[m + 2]);
        let enorm = 2.0 / (f2 - f0);
        for (k, &f) in fft_freqs.iter().enumerate() {
            let lower = (f - f0) / (f1 - f0);
            let upper = (f2 - f) / (f2 - f1);
            w[m * N_BINS + k] = (lower.min(upper).max(0.0) * enorm) as f32;
        }
    }
    w
}

/// Reusable log-mel extractor: FFT plan, window, filterbank and scratch buffers.
pub struct MelExtractor {
    fft: Arc<dyn Fft<f32>>,
    window: Vec<f32>,
    filters: Vec<f32>,
    frame: Vec<Complex<f32>>,
    scratch: Vec<Complex<f32>>,
    power: Vec<f32>,
}

impl std::fmt::Debug for MelExtractor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MelExtractor")
    }
}

impl Default for MelExtractor {
    fn default() -> Self {
        Self::new()
    }
}

impl MelExtractor {
    pub fn new() -> Self {
        let fft = FftPlanner::new().plan_fft_forward(N_FFT);
        let scratch = vec![Complex::default(); fft.get_inplace_scratch_len()];
        // Periodic Hann window, as torch.hann_window(400).
        let window = (0..N_FFT)
            .map(|n| {
                (0.5 - 0.5 * (2.0 * std::f64::consts::PI * n as f64 / N_FFT as f64).cos()) as f32
            })
            .collect();
        Self {
            fft,
            window,
            filters: mel_filterbank(),
            frame: vec![Complex::default(); N_FFT],
            scratch,
            power: vec![0.0; N_BINS],
        }
    }

    /// Number of frames produced for `n` samples (torch.stft with center=True, last frame
    /// dropped, as Whisper does).
    pub fn n_frames(n: usize) -> usize {
        n / HOP
    }

    /// Computes the log-mel spectrogram of `samples` (16 kHz mono) into `out`, laid out
    /// `[N_MELS][n_frames]` (mel-major, as Whisper's encoder input). `out` is resized; its
    /// capacity is reused across calls. Samples are reflect-padded by n_fft/2 on both sides
    /// (zero-padded where the input is too short to reflect).
    pub fn compute(&mut self, samples: &[f32], out: &mut Vec<f32>) -> usize {
        let n = samples.len();
        let n_frames = Self::n_frames(n);
        out.clear();
        out.resize(N_MELS * n_frames, 0.0);
        let pad = N_FFT / 2;
        let at = |i: isize| -> f32 {
            // Reflect padding (no edge repeat) like numpy/torch "reflect".
            let n = n as isize;
            let j = if i < 0 {
                -i
            } else if i >= n {
                2 * (n - 1) - i
            } else {
                i
            };
            if (0..n).contains(&j) {
                samples[j as usize]
            } else {
                0.0
            }
        };
        let mut max_log = f32::NEG_INFINITY;
        for t in 0..n_frames {
            let start = (t * HOP) as isize - pad as isize;
            for (k, c) in self.frame.iter_mut().enumerate() {
                *c = Complex::new(at(start + k as isize) * self.window[k], 0.0);
            }
            self.fft
                .process_with_scratch(&mut self.frame, &mut self.scratch);
            for (p, c) in self.power.iter_mut().zip(&self.frame) {
                *p = c.norm_sqr();
            }
            for m in 0..N_MELS {
                let row = &self.filters[m * N_BINS..(m + 1) * N_BINS];
                let e: f32 = row.iter().zip(&self.power).map(|(w, p)| w * p).sum();
                let l = e.max(1e-10).log10();
                max_log = max_log.max(l);
                out[m * n_frames + t] = l;
            }
        }
        let floor = max_log - 8.0;
        for v in out.iter_mut() {
            *v = (v.max(floor) + 4.0) / 4.0;
        }
        n_frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per-filter sums and peak bins of Whisper's published `mel_filters.npz` (`mel_80`),
    /// from the openai-whisper sdist (`bench/asr_mel_reference.py` prints them).
    #[test]
    fn filterbank_matches_whisper_published_values() {
        let w = mel_filterbank();
        for (m, &(sum, peak, peak_val)) in crate::mel_ref::FILTER_DIGEST.iter().enumerate() {
            let row = &w[m * N_BINS..(m + 1) * N_BINS];
            let s: f32 = row.iter().sum();
            let (pk, pv) = row
                .iter()
                .enumerate()
                .fold((0, f32::MIN), |a, (i, &v)| if v > a.1 { (i, v) } else { a });
            assert!(
                (s - sum).abs() <= 1e-6 + 1e-4 * sum.abs(),
                "filter {m}: sum {s} vs {sum}"
            );
            assert_eq!(pk, peak, "filter {m}: peak bin");
            assert!(
                (pv - peak_val).abs() <= 1e-6 + 1e-4 * peak_val,
                "filter {m}: {pv} vs {peak_val}"
            );
        }
    }

    #[test]
    fn silence_gives_the_floor_and_a_tone_its_bin() {
        let mut mel = MelExtractor::new();
        let mut out = Vec::new();
        let n = mel.compute(&vec![0.0; 16_000], &mut out);
        assert_eq!(n, 100);
        assert!(
            out.iter()
                .all(|&v| (v - (-10.0f32 + 4.0) / 4.0).abs() < 1e-6)
        );
        // A 1 kHz tone peaks in the mel bin whose centre is nearest 1 kHz.
        let tone: Vec<f32> = (0..16_000)
            .map(|i| (2.0 * std::f32::consts::PI * 1000.0 * i as f32 / 16_000.0).sin() * 0.5)
            .collect();
        mel.compute(&tone, &mut out);
        let t = 50;
        let best = (0..N_MELS)
            .max_by(|&a, &b| out[a * n + t].total_cmp(&out[b * n + t]))
            .expect("80 bins");
        assert!((25..=27).contains(&best), "1 kHz tone peaked in bin {best}");
    }

    /// Whole-clip check against Whisper's log-mel (re-done in numpy) on jfk.wav.
    #[test]
    fn jfk_log_mel_matches_reference() {
        let store = pocket_assets::Store::open_default().expect("asset store");
        let path = store
            .require_file(pocket_assets::ids::JFK, "jfk.wav")
            .expect("jfk.wav installed (pocket assets fetch --set test-audio)");
        let mut r = hound::WavReader::open(path).expect("wav");
        let samples: Vec<f32> = r
            .samples::<i16>()
            .map(|s| f32::from(s.expect("sample")) / 32768.0)
            .collect();
        let mut mel = MelExtractor::new();
        let mut out = Vec::new();
        let n = mel.compute(&samples, &mut out);
        use crate::mel_ref::{JFK_BIN_MEANS, JFK_FRAMES, JFK_POINTS};
        assert_eq!(n, JFK_FRAMES);
        for (m, &want) in JFK_BIN_MEANS.iter().enumerate() {
            let got = out[m * n..(m + 1) * n].iter().sum::<f32>() / n as f32;
            assert!((got - want).abs() < 2e-4, "bin {m}: mean {got} vs {want}");
        }
        for &(b, t, want) in &JFK_POINTS {
            let got = out[b * n + t];
            assert!(
                (got - want).abs() < 2e-3,
                "bin {b} frame {t}: {got} vs {want}"
            );
        }
    }
}
