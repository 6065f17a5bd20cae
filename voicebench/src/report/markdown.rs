//! The report's Markdown summary (report.md): scores, latency percentiles, stage means, WER
//! and links to the plots written beside it.

use std::fmt::Write as _;

use super::{LATENCIES, Report, STAGES};

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
