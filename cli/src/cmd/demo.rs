//! `pocket demo`: the README's main command. Fetches the default models (the large answering
//! model too where the machine runs it by default), speaks a few real
//! questions with the built-in voice (not the assistant's Piper voice), and holds a spoken
//! conversation on them through the whole voice loop with the product's default settings,
//! printing what was heard, the streamed reply and the latency table.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result};
use clap::Args;
use pocket_assets::Store;
use pocket_pipeline::engines::choice::wants_large_model;
use pocket_tts::{FallbackVoice, Voice};

use super::converse::{ConverseArgs, run_with};
use crate::args::{ChatChoiceArgs, EndpointArgs, PaceArg, off_or_ms};
use crate::summary::print_summary;

/// What the demo asks: everyday questions with one right answer. Each is one phrase in the
/// built-in voice: flite puts a 330-400 ms break at a phrase boundary ("Who was the first
/// person | to walk on the moon?"), which the default 400 ms end-of-speech wait takes for the
/// end of the turn and answers half the question (see the turn-taking bench).
pub const DEMO_QUESTIONS: [&str; 4] = [
    "What is the capital of France?",
    "How many days are there in a week?",
    "What do bees make?",
    "What color is grass?",
];

#[derive(Args)]
pub struct DemoArgs {
    /// Run faster than real time (latencies are then compressed).
    #[arg(long)]
    pub fast: bool,
    /// Where to write the assistant's spoken replies.
    #[arg(long, default_value = "pocket-demo-replies.wav")]
    pub output: PathBuf,
    /// Where to write the latency report.
    #[arg(long, default_value = "pocket-demo-report.json")]
    pub report: PathBuf,
    #[command(flatten)]
    pub chat: ChatChoiceArgs,
}

pub fn run(args: DemoArgs) -> Result<()> {
    let store = Store::open_default()?;
    // The default models, and the large answering model where this machine runs it by
    // default (pocket_pipeline::engines::choice): the demo shows what a user gets.
    let mut sets = vec!["default".to_string()];
    if args.chat.model.is_none() && wants_large_model() {
        sets.push("large".into());
    }
    super::assets::fetch(
        &store,
        &super::assets::FetchArgs {
            sets,
            ids: vec![],
            quiet: true,
        },
    )?;
    let dir = tempfile::tempdir().context("a folder for the spoken questions")?;
    let inputs = speak_questions(&DEMO_QUESTIONS, dir.path())?;
    println!(
        "Pocket Voice demo: {} questions, spoken by the built-in voice, through ASR → LLM → TTS\n",
        inputs.len()
    );
    let defaults = pocket_pipeline::PipelineConfig::default();
    let report = run_with(
        &store,
        &ConverseArgs {
            inputs,
            output: args.output.clone(),
            report: Some(args.report.clone()),
            pace: if args.fast {
                PaceArg::Fast
            } else {
                PaceArg::Realtime
            },
            threads: 2,
            quiet: false,
            first_audio_gate_ms: 1500,
            first_piece_due_ms: off_or_ms(defaults.first_piece_due),
            later_piece_due_below_ms: off_or_ms(defaults.later_piece_due_below),
            end_silence_ms: pocket_pipeline::EndpointConfig::default()
                .end_silence
                .as_millis() as u64,
            endpoint: EndpointArgs::default(),
            chat: args.chat.clone(),
        },
    )?;
    print_summary(&report);
    println!(
        "\nReplies written to {} and the latency report to {}.",
        args.output.display(),
        args.report.display()
    );
    Ok(())
}

/// Speaks each question with the built-in (flite) voice into a 16 kHz WAV in `dir`, with
/// half a second of silence before and after, as a person at a microphone would.
fn speak_questions(questions: &[&str], dir: &std::path::Path) -> Result<Vec<PathBuf>> {
    let mut voice = FallbackVoice::new();
    let rate = voice.sample_rate();
    let pad = vec![0.0f32; rate as usize / 2];
    let mut out = Vec::new();
    for (i, q) in questions.iter().enumerate() {
        let mut pcm = pad.clone();
        voice.synthesize(q, &AtomicBool::new(false), &mut |chunk| {
            pcm.extend_from_slice(chunk);
            ControlFlow::Continue(())
        })?;
        pcm.extend_from_slice(&pad);
        let path = dir.join(format!("question-{i}.wav"));
        let pcm = pocket_tts::resample(&pcm, rate, 16_000)?;
        pocket_tts::write_wav(&path, &pcm, 16_000)?;
        out.push(path);
    }
    Ok(out)
}
