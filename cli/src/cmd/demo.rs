//! `pocket demo`: the README's main command. Fetches the default models and the test audio,
//! then holds a spoken conversation on sample clips (jfk.wav and spoken commands) through the
//! whole voice loop, printing what was heard, the streamed reply and the latency of each turn.

use anyhow::Result;
use clap::Args;
use pocket_assets::{Store, ids};
use std::path::PathBuf;

use super::converse::{ConverseArgs, PaceArg, print_summary, run_with};

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
}

pub fn run(args: DemoArgs) -> Result<()> {
    let store = Store::open_default()?;
    super::assets::fetch(
        &store,
        &super::assets::FetchArgs {
            sets: vec!["default".into(), "test-audio".into()],
            ids: vec![],
            quiet: true,
        },
    )?;
    let inputs = vec![
        store.require_file(ids::JFK, "jfk.wav")?,
        store.require_file(ids::CARDS, "001.wav")?,
        store.require_file(ids::CARDS, "003.wav")?,
    ];
    println!(
        "Pocket Voice demo: {} spoken turns through ASR → LLM → TTS\n",
        inputs.len()
    );
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
            // jfk.wav pauses for over a second between its phrases.
            end_silence_ms: 1500,
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
