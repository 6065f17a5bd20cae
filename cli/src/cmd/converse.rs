//! `pocket converse`: input WAV files played as the microphone (one user turn per file) through
//! the whole voice loop on the default models; writes what the assistant said and the latency
//! report.

use anyhow::{Context, Result};
use clap::Args;
use pocket_assets::Store;
use pocket_pipeline::audio::file::{
    ClipEnd, ClipTurn, FileSink, Pace, TurnOutcome, converse_timed,
};
use pocket_pipeline::audio::wav;
use pocket_pipeline::engines::default::load_default;
use pocket_pipeline::{Pipeline, PipelineConfig, Report};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::args::{ChatChoiceArgs, EndpointArgs, PaceArg, ms_or_off};
use crate::events::print_event;
use crate::summary::print_summary;

#[derive(Args)]
pub struct ConverseArgs {
    /// A user turn (WAV, any rate); repeat for more turns.
    #[arg(long = "input", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Where to write what the assistant said (WAV).
    #[arg(long)]
    pub output: PathBuf,
    /// Where to write the latency report (JSON).
    #[arg(long)]
    pub report: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "realtime")]
    pub pace: PaceArg,
    /// Compute threads per engine.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Print nothing but errors.
    #[arg(long)]
    pub quiet: bool,
    /// While synthesis runs with under 1.5 s of reply audio queued (always before the first
    /// chunk), the LLM pauses, up to this long per wait, so it does not starve synthesis on
    /// few cores (0 = never pause).
    #[arg(long, default_value_t = 1500)]
    pub first_audio_gate_ms: u64,
    /// A first spoken phrase still unfinished this long after the reply's first token is cut
    /// at the next word (0 = never cut; a slow model's first phrase then runs to its clause).
    #[arg(long, default_value_t = 150)]
    pub first_piece_due_ms: u64,
    /// A later spoken phrase still unfinished when less than this much reply audio is left to
    /// play is cut at the next word, so the output does not run dry (0 = never cut).
    #[arg(long, default_value_t = 300)]
    pub later_piece_due_below_ms: u64,
    /// Silence that ends a user turn in `--endpoint fixed` (raise it for clips with long
    /// pauses).
    #[arg(long, default_value_t = 400)]
    pub end_silence_ms: u64,
    #[command(flatten)]
    pub endpoint: EndpointArgs,
    #[command(flatten)]
    pub chat: ChatChoiceArgs,
}

pub fn run(args: ConverseArgs) -> Result<()> {
    let store = Store::open_default()?;
    let report = run_with(&store, &args)?;
    if !args.quiet {
        print_summary(&report);
    }
    Ok(())
}

/// Runs the conversation; also used by `pocket demo`.
pub fn run_with(store: &Store, args: &ConverseArgs) -> Result<Report> {
    let pace = Pace::from(args.pace);
    // Every file is checked before the session starts, then read again when its turn comes:
    // a long session never holds all its clips (the 120 of the held-out session: 23 MB).
    let read =
        |p: &PathBuf| wav::read_mono(p, 16_000).with_context(|| format!("reading {}", p.display()));
    for p in &args.inputs {
        read(p)?;
    }
    let mut opts = args
        .chat
        .engine_options(store, args.threads, pace == Pace::Realtime);
    let endpoint = args.endpoint.choice(args.end_silence_ms);
    endpoint.apply_to(&mut opts);
    let loaded = load_default(store, &opts)?;
    for w in &loaded.warnings {
        eprintln!("note: {w}");
    }
    let config = PipelineConfig {
        output_rate: loaded.voice_rate,
        // Files have no acoustic echo path.
        echo_cancel: false,
        first_audio_gate: ms_or_off(args.first_audio_gate_ms),
        first_piece_due: ms_or_off(args.first_piece_due_ms),
        later_piece_due_below: ms_or_off(args.later_piece_due_below_ms),
        endpoint: endpoint.config(),
        speculative_reply: endpoint.speculate,
        // A finite run: the report lists every turn.
        kept_records: usize::MAX,
        ..PipelineConfig::default()
    };
    let (pipeline, ports) = Pipeline::start(loaded.engines, config)?;
    let handle = pipeline.handle();
    let events = handle.subscribe();
    let quiet = args.quiet;
    let printer = std::thread::spawn(move || {
        for e in events.iter() {
            if !quiet {
                print_event(&e);
            }
        }
    });
    let rate = ports.output_rate;
    // The replies go to the file as they play: a long session is never held in memory.
    let sink = FileSink::recording(ports.speaker, rate, pace, &args.output)?;
    let mut mic = ports.mic;
    let timing = (pace, Duration::from_secs(120));
    let outcomes = (|| -> Result<Vec<ClipTurn>> {
        let mut turns = Vec::with_capacity(args.inputs.len());
        for p in &args.inputs {
            let clip = read(p)?;
            turns.extend(converse_timed(
                &mut mic,
                &handle,
                &[clip],
                timing,
                ClipEnd::Natural,
            )?);
        }
        Ok(turns)
    })();
    let recorded = sink.finish_file();
    let mut report = handle.report();
    handle.shutdown();
    drop(mic);
    pipeline.shutdown();
    let _ = printer.join();
    let outcomes = outcomes?;
    for (i, o) in outcomes.iter().enumerate() {
        if o.outcome != TurnOutcome::Answered && !quiet {
            eprintln!(
                "turn {}: {:?} ({})",
                i + 1,
                o.outcome,
                args.inputs[i].display()
            );
        }
    }
    if pace == Pace::Realtime {
        let ends: Vec<f64> = outcomes
            .iter()
            .filter_map(|o| o.true_speech_end_ms)
            .collect();
        report.attach_true_speech_ends(&ends);
    }
    recorded?;
    if let Some(path) = &args.report {
        write_report(path, &report, &args.inputs, &outcomes)?;
    }
    Ok(report)
}

/// The pipeline's report plus `inputs`: each input file, how its turn ended, and (for
/// answered ones) the number of the turn record that answered it.
fn write_report(
    path: &Path,
    report: &Report,
    inputs: &[PathBuf],
    outcomes: &[ClipTurn],
) -> Result<()> {
    let mut json = serde_json::to_value(report)?;
    let turns = answering_turns(report, outcomes);
    let rows: Vec<serde_json::Value> = inputs
        .iter()
        .zip(outcomes)
        .zip(turns)
        .map(|((path, o), turn)| {
            serde_json::json!({
                "path": path.display().to_string(),
                "outcome": format!("{:?}", o.outcome),
                "turn": turn,
                "true_speech_end_ms": o.true_speech_end_ms,
            })
        })
        .collect();
    json["inputs"] = rows.into();
    let text = serde_json::to_string_pretty(&json)?;
    // A full disk or a crash leaves the previous report whole, never half of this one.
    pocket_assets::write_atomic(path, text.as_bytes()).map_err(|e| {
        anyhow::anyhow!("the latency report was not written, a previous one is kept: {e}")
    })
}

/// For each clip, the number of the turn record that answered it: the first record, after the
/// one matched to the clip before, whose words are the clip's newest turn's. A clip cut at a
/// pause makes two turns (two records), so counting answered clips would pair every later clip
/// with the turn before its own.
fn answering_turns(report: &Report, outcomes: &[ClipTurn]) -> Vec<Option<u64>> {
    let mut next = 0;
    outcomes
        .iter()
        .map(|o| {
            let heard = o
                .heard
                .as_deref()
                .filter(|_| o.outcome == TurnOutcome::Answered)?;
            let found = report.turns[next..]
                .iter()
                .position(|t| t.user_text == heard)?;
            next += found + 1;
            Some(report.turns[next - 1].turn)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pocket_pipeline::metrics::TurnRecord;

    fn record(turn: u64, user_text: &str) -> TurnRecord {
        TurnRecord {
            turn,
            ..TurnRecord::of_words(user_text)
        }
    }

    fn clip(outcome: TurnOutcome, heard: Option<&str>) -> ClipTurn {
        ClipTurn {
            outcome,
            true_speech_end_ms: None,
            heard: heard.map(str::to_string),
        }
    }

    #[test]
    fn a_clip_cut_in_two_turns_does_not_shift_the_clips_after_it() {
        let turns = [
            "What is two and two?",
            "What game has",
            "kings and queens?",
            "Hi.",
        ];
        let records = turns
            .iter()
            .enumerate()
            .map(|(i, t)| record(i as u64 + 1, t))
            .collect();
        let report = Report::new(records, &[], None);
        let clips = [
            clip(TurnOutcome::Answered, Some("What is two and two?")),
            // Cut at its pause: two turns, the newest answered it.
            clip(TurnOutcome::Answered, Some("kings and queens?")),
            clip(TurnOutcome::NoSpeech, None),
            clip(TurnOutcome::Answered, Some("Hi.")),
        ];
        assert_eq!(
            answering_turns(&report, &clips),
            [Some(1), Some(3), None, Some(4)]
        );
    }
}
