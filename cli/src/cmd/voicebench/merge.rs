//! `pocket voicebench merge`: join shard outputs into one file ordered by sample, refusing
//! (and naming the keys) when a sample is missing or answered twice.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use pocket_voicebench::{SampleKey, load_split, merge, read_records, write_records};

#[derive(Args)]
pub struct MergeArgs {
    /// The merged jsonl file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Shard outputs (`<subset>-<split>.shard-i-of-n.jsonl`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Check completeness against this data (with --subset and --split) instead of against
    /// the indices seen (which cannot notice a missing last sample).
    #[arg(long, requires_all = ["subset", "split"])]
    pub data: Option<PathBuf>,
    #[arg(long)]
    pub subset: Option<String>,
    #[arg(long)]
    pub split: Option<String>,
    /// With --data: expect only the split's first N samples (a run with --limit N).
    #[arg(long)]
    pub limit: Option<usize>,
}

pub fn run(args: MergeArgs) -> Result<()> {
    let mut outputs = Vec::new();
    for f in &args.files {
        outputs.push(read_records(f).with_context(|| format!("reading {}", f.display()))?);
    }
    let expected: Option<BTreeSet<SampleKey>> = match (&args.data, &args.subset, &args.split) {
        (Some(data), Some(subset), Some(split)) => {
            let samples = load_split(data, subset, split)?;
            Some(
                samples
                    .into_iter()
                    .take(args.limit.unwrap_or(usize::MAX))
                    .map(|s| s.sample_key)
                    .collect(),
            )
        }
        (None, ..) => None,
        _ => bail!("--data needs --subset and --split"),
    };
    let merged = merge(outputs, expected.as_ref())
        .with_context(|| format!("merging {} file(s)", args.files.len()))?;
    write_records(&args.out, &merged)?;
    eprintln!("{}: {} records", args.out.display(), merged.len());
    Ok(())
}
