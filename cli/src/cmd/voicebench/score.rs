//! `pocket voicebench score`: score output files by VoiceBench's rules and write report.json,
//! report.md and SVG plots into a report folder.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use pocket_voicebench::report::write_folder;
use pocket_voicebench::{ScoreOptions, read_records, score_records};

#[derive(Args)]
pub struct ScoreArgs {
    /// Output files of `voicebench run` or `merge` (several subsets may be scored together).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Where report.json, report.md and the plots go.
    #[arg(long)]
    pub report_dir: PathBuf,
    /// Seed of the scorers' random fallback for unparseable answers (VoiceBench's is unseeded).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

pub fn run(args: ScoreArgs) -> Result<()> {
    let mut records = Vec::new();
    for f in &args.files {
        records.extend(read_records(f).with_context(|| format!("reading {}", f.display()))?);
    }
    let scores = score_records(&records, &ScoreOptions { seed: args.seed })?;
    for s in &scores {
        println!("{s}");
    }
    let files = args.files.iter().map(|f| f.display().to_string()).collect();
    let md = write_folder(&args.report_dir, files, &records, &scores)?;
    eprintln!("report: {}", md.display());
    Ok(())
}
