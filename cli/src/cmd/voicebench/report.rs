//! The score report: scores per subset, latency percentiles, stage means and WER, as
//! report.json and a Markdown summary.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use pocket_voicebench::{Record, SubsetScore};
use serde::Serialize;

use super::stats::{Spread, Wer};

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

/// The Markdown summary, linking the plots written beside it.
pub fn markdown(r: &Report, plots: &[&str]) -> String {
    let mut md = String::from("# VoiceBench run\n\n");
    let _ = writeln!(
        md,
        "{} samples from {} ({} not answered).\n",
        r.samples,
        r.files.join(", "),
        r.errors
    );
    md.push_str("## Scores\n\n| subset | split | scorer | n | score | failures | metrics |\n");
    md.push_str("|---|---|---|---:|---:|---:|---|\n");
    for s in &r.scores {
        let score = s.score.map_or("judge".to_string(), |v| format!("{v:.1}"));
        let metrics: Vec<String> = s
            .metrics
            .iter()
            .map(|(k, v)| format!("{k} {v:.3}"))
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {score} | {} | {} |",
            s.subset,
            s.split,
            s.scorer,
            s.n,
            s.failures,
            metrics.join(", ")
        );
    }
    md.push_str("\nScores are percent (refusal rate for advbench; IFEval's mean of the four ");
    md.push_str("accuracies); \"judge\" subsets need VoiceBench's `api_judge.py`.\n");
    if !r.latency_ms.is_empty() {
        md.push_str("\n## Latency (ms)\n\n| quantity | n | P50 | P90 | P99 | mean |\n");
        md.push_str("|---|---:|---:|---:|---:|---:|\n");
        for (key, label) in LATENCIES {
            if let Some(s) = r.latency_ms.get(key) {
                let _ = writeln!(
                    md,
                    "| {label} | {} | {:.0} | {:.0} | {:.0} | {:.0} |",
                    s.n, s.p50, s.p90, s.p99, s.mean
                );
            }
        }
    }
    if !r.stage_means_ms.is_empty() {
        md.push_str("\n## Mean ms per stage\n\n| subset/split |");
        for s in STAGES {
            let _ = write!(md, " {s} |");
        }
        md.push_str("\n|---|");
        md.push_str(&"---:|".repeat(STAGES.len()));
        md.push('\n');
        for (g, means) in &r.stage_means_ms {
            let _ = write!(md, "| {g} |");
            for s in STAGES {
                match means.get(s) {
                    Some(v) => {
                        let _ = write!(md, " {v:.0} |");
                    }
                    None => md.push_str(" - |"),
                }
            }
            md.push('\n');
        }
    }
    if let Some(w) = &r.wer {
        let _ = writeln!(
            md,
            "\n## Speech recognition\n\nWER of the transcript against the prompt text: \
             {:.1}% ({} edits over {} words, {} samples; lowercase, punctuation stripped).",
            100.0 * w.wer,
            w.edits,
            w.reference_words,
            w.n
        );
    }
    if !plots.is_empty() {
        md.push_str("\n## Plots\n\n");
        for p in plots {
            let _ = writeln!(md, "![{p}]({p})\n");
        }
    }
    md
}
