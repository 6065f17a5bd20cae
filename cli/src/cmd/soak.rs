//! `pocket soak`: many turns on one running voice loop at fast pace (spoken, typed and
//! push-to-talk turns, seeded barge-ins while thinking and while speaking, resets), checking
//! that no turn gets stuck, memory and threads stay flat and the history holds what was heard.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use pocket_assets::Store;
use pocket_pipeline::soak::{self, FastRig, SoakOptions};

#[derive(Args)]
pub struct SoakArgs {
    /// User turns to take.
    #[arg(long, default_value_t = 200)]
    pub turns: usize,
    /// Seed of the plan (which input, which barge-in, where the resets fall).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Compute threads per engine.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// A turn that has not ended after this many seconds is stuck (the run stops there).
    #[arg(long, default_value_t = 60)]
    pub turn_timeout_s: u64,
    /// Memory and threads are compared from this turn on.
    #[arg(long, default_value_t = 20)]
    pub steady_from: usize,
    /// Also cut replies off with typed turns (a typed turn supersedes the reply in progress).
    #[arg(long)]
    pub typed_barge_ins: bool,
    /// Where to write the whole report (JSON: counts, RSS and threads after every turn).
    #[arg(long)]
    pub report: Option<PathBuf>,
}

pub fn run(args: SoakArgs) -> Result<()> {
    let store = Store::open_default()?;
    let words = soak::clips::words();
    let clips = soak::clips::spoken_questions(&words)?;
    let texts: Vec<String> = words.iter().map(|w| soak::clips::question(w)).collect();
    let opts = SoakOptions {
        turns: args.turns,
        seed: args.seed,
        turn_timeout: Duration::from_secs(args.turn_timeout_s.max(1)),
        steady_from: args.steady_from.max(1),
        typed_barge_ins: args.typed_barge_ins,
    };
    let mut rig = FastRig::start(&store, args.threads)?;
    for w in &rig.warnings {
        eprintln!("note: {w}");
    }
    let report = rig.soak(&clips, &texts, &opts, &mut |r| {
        if r.turns % 20 == 0 || r.turns == opts.turns {
            eprintln!(
                "turn {:>5}/{}: RSS {:.1} MB, {} threads, {} barge-ins, {:.0} s",
                r.turns,
                opts.turns,
                r.rss_kb.last().copied().unwrap_or(0) as f64 / 1024.0,
                r.threads.last().copied().unwrap_or(0),
                r.barge_ins_thinking + r.barge_ins_speaking,
                r.wall_s
            );
        }
    });
    rig.stop();
    println!("{}", report.table());
    if let Some(path) = &args.report {
        let json = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, json).with_context(|| format!("writing {}", path.display()))?;
    }
    let failures = report.failures();
    if !failures.is_empty() {
        bail!("the soak failed:\n{}", failures.join("\n"));
    }
    Ok(())
}
