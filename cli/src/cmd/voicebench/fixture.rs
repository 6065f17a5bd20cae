//! `pocket voicebench fixture`: write the small spoken VoiceBench-format set
//! (`pocket_voicebench::fixture`) into a folder, naming each file as it is written.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use pocket_voicebench::fixture::write_fixture;

#[derive(Args)]
pub struct FixtureArgs {
    /// The folder to write (one subfolder per subset).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(args: FixtureArgs) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    write_fixture(&args.out, tmp.path(), |file, n| {
        eprintln!("{}: {n} samples", file.display());
    })?;
    Ok(())
}
