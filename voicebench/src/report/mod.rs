//! The score report of a run: scores per subset, latency percentiles, stage means and WER,
//! written into a report folder as report.json, report.md and SVG plots (`pocket voicebench
//! score`).

mod folder;
mod markdown;
mod plots;
mod stats;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::record::Record;
use crate::score::SubsetScore;

pub use folder::write_folder;
pub use markdown::markdown;
pub use plots::write_plots;
pub use stats::{Spread, Wer, normalize_words};

/// Latencies reported with percentiles: record timing key and its label.
pub const LATENCIES: [(&str, &str); 7] = [
    (
        "first_audio_true_end",
        "first audio (from true end of speech)",
    ),
    (
        "first_audio",
        "first audio (from the turn's end: release, or VAD)",
    ),
    ("response", "response (first audio from endpoint)"),
    ("asr", "ASR final (from endpoint)"),
    ("llm_first_token", "LLM first token"),
    ("tts_first_chunk", "TTS first chunk"),
    ("total", "whole reply (text)"),
];

/// The voice loop's stages in order (`TurnMetrics::stages`).
pub const STAGES: [&str; 6] = [
    "endpoint_wait",
    "asr",
    "llm_first_token",
    "segmenter",
    "tts_first_chunk",
    "to_output",
];

#[derive(Debug, Serialize)]
pub struct ScoreRow {
    pub subset: String,
    pub split: String,
    pub scorer: String,
    pub n: usize,
    /// Leaderboard scale (percent); `null` when an external judge is needed.
    pub score: Option<f64>,
    pub metrics: BTreeMap<String, f64>,
    /// Answers the scorer could not parse (random fallback) or instructions it could not build.
    pub fallbacks: usize,
    /// Samples the runner could not answer (empty response, `error` field).
    pub errors: usize,
    pub failures: usize,
    pub note: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub files: Vec<String>,
    pub samples: usize,
    pub errors: usize,
    pub scores: Vec<ScoreRow>,
    pub latency_ms: BTreeMap<String, Spread>,
    /// Mean ms of each voice-loop stage, per `subset/split`.
    pub stage_means_ms: BTreeMap<String, BTreeMap<String, f64>>,
    /// ASR transcript against the prompt text (lowercase, punctuation stripped).
    pub wer: Option<Wer>,
}

fn group(r: &Record) -> String {
    format!("{}/{}", r.sample.subset, r.sample.split)
}

fn is_error(r: &Record) -> bool {
    r.extra.contains_key("error")
}

/// The report of `records` (read from `files`) and their `scores`.
pub fn build(files: Vec<String>, records: &[Record], scores: &[SubsetScore]) -> Report {
    let mut errors_by: BTreeMap<String, usize> = BTreeMap::new();
    for r in records.iter().filter(|r| is_error(r)) {
        *errors_by.entry(group(r)).or_default() += 1;
    }
    let rows = scores
        .iter()
        .map(|s| {
            let errors = errors_by
                .get(&format!("{}/{}", s.subset.name(), s.split))
                .copied()
                .unwrap_or(0);
            ScoreRow {
                subset: s.subset.name().to_string(),
                split: s.split.clone(),
                scorer: format!("{:?}", s.kind),
                n: s.n,
                score: s.score,
                metrics: s.metrics.clone(),
                fallbacks: s.fallbacks,
                errors,
                failures: s.fallbacks + errors,
                note: s.note.clone(),
            }
        })
        .collect();
    let mut latency_ms = BTreeMap::new();
    for (key, _) in LATENCIES {
        let values: Vec<f64> = records
            .iter()
            .filter_map(|r| r.timings.get(key).copied())
            .collect();
        if let Some(s) = Spread::of(&values) {
            latency_ms.insert(key.to_string(), s);
        }
    }
    let mut stage_means_ms: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let mut groups: BTreeMap<String, Vec<&Record>> = BTreeMap::new();
    for r in records {
        groups.entry(group(r)).or_default().push(r);
    }
    for (g, rs) in &groups {
        let mut means = BTreeMap::new();
        for stage in STAGES {
            let v: Vec<f64> = rs
                .iter()
                .filter_map(|r| r.timings.get(stage).copied())
                .collect();
            if !v.is_empty() {
                means.insert(stage.to_string(), v.iter().sum::<f64>() / v.len() as f64);
            }
        }
        if !means.is_empty() {
            stage_means_ms.insert(g.clone(), means);
        }
    }
    let wer = Wer::of(
        records
            .iter()
            .filter_map(|r| r.transcript.as_deref().map(|t| (r.prompt.as_str(), t))),
    );
    Report {
        files,
        samples: records.len(),
        errors: records.iter().filter(|r| is_error(r)).count(),
        scores: rows,
        latency_ms,
        stage_means_ms,
        wer,
    }
}
