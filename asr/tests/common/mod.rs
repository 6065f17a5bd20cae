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
    let mut prev: Vec<usize> = (0..=h.len()).collect();
    for (i, rw) in r.iter().enumerate() {
        let mut cur = vec![i + 1; h.len() + 1];
        for (j, hw) in h.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(rw != hw))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[h.len()]
}
