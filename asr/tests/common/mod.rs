//! Helpers shared by the integration tests: locating assets, reading WAV files, WER.
#![allow(dead_code)]

use std::path::PathBuf;

pub fn store() -> pocket_assets::Store {
    pocket_assets::Store::open_default().expect("asset store ($POCKET_HOME)")
}

pub fn model_dir(id: &str) -> PathBuf {
    store()
        .require(id)
        .expect("model installed: pocket assets fetch --set all")
}

/// Reads a WAV file as interleaved f32 samples, with its rate and channel count.
pub fn read_wav(path: &std::path::Path) -> (Vec<f32>, u32, u16) {
    let mut r = hound::WavReader::open(path).expect("wav file");
    let spec = r.spec();
    let samples = match spec.sample_format {
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1u64 << (spec.bits_per_sample - 1)) as f32;
            r.samples::<i32>()
                .map(|s| s.expect("sample") as f32 * scale)
                .collect()
        }
        hound::SampleFormat::Float => r.samples::<f32>().map(|s| s.expect("sample")).collect(),
    };
    (samples, spec.sample_rate, spec.channels)
}

pub fn jfk() -> Vec<f32> {
    let p = store()
        .require_file(pocket_assets::ids::JFK, "jfk.wav")
        .expect("jfk.wav");
    read_wav(&p).0
}

pub const JFK_TEXT: &str = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";

/// The LibriVox clips with their reference transcripts (`<s> text </s> (id)` lines).
pub fn librivox() -> Vec<(String, Vec<f32>, String)> {
    let dir = store()
        .require(pocket_assets::ids::LIBRIVOX)
        .expect("librivox clips");
    let list = std::fs::read_to_string(dir.join("transcription")).expect("transcription");
    list.lines()
        .filter_map(|l| {
            let text = l.trim().strip_prefix("<s>")?;
            let (text, id) = text.split_once("</s>")?;
            let id = id
                .trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .to_string();
            let (samples, rate, ch) = read_wav(&dir.join(format!("{id}.wav")));
            assert_eq!((rate, ch), (16_000, 1));
            Some((id, samples, text.trim().to_string()))
        })
        .collect()
}

/// Lowercase, hyphens to spaces, other punctuation removed, whitespace collapsed.
pub fn normalize(s: &str) -> Vec<String> {
    let s: String = s
        .to_lowercase()
        .chars()
        .map(|c| if c == '-' { ' ' } else { c })
        .filter(|c| c.is_alphanumeric() || c.is_whitespace())
        .collect();
    s.split_whitespace().map(str::to_string).collect()
}

/// Word edit distance.
pub fn edits(r: &[String], h: &[String]) -> usize {
    pocket_stats::edit_distance(r, h)
}

/// One shared tiny.en recognizer per test binary (loading runs a 30 s silence window once).
pub fn tiny() -> std::sync::Arc<pocket_asr::Recognizer> {
    static REC: std::sync::OnceLock<std::sync::Arc<pocket_asr::Recognizer>> =
        std::sync::OnceLock::new();
    REC.get_or_init(|| {
        pocket_asr::Recognizer::load(&model_dir("whisper-tiny.en"), Default::default())
            .expect("load tiny.en")
    })
    .clone()
}

/// Word errors of `text` against `reference` after normalisation.
pub fn errors(reference: &str, text: &str) -> usize {
    edits(&normalize(reference), &normalize(text))
}

/// Deterministic white noise of amplitude `amp`.
pub fn noise(n: usize, amp: f32, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(2862933555777941757)
        .wrapping_add(3037000493);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * amp
        })
        .collect()
}

/// 16 kHz to `rate` by linear interpolation (test input only; the content is below 8 kHz).
pub fn upsample(x: &[f32], rate: u32) -> Vec<f32> {
    let n = (x.len() as u64 * u64::from(rate) / 16_000) as usize;
    (0..n)
        .map(|j| {
            let pos = j as f64 * 16_000.0 / f64::from(rate);
            let i = pos as usize;
            let f = (pos - i as f64) as f32;
            let a = x[i.min(x.len() - 1)];
            let b = x[(i + 1).min(x.len() - 1)];
            a + (b - a) * f
        })
        .collect()
}
