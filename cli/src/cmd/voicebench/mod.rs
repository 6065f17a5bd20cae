//! `pocket voicebench`: the runner half of the VoiceBench harness — run a subset through the
//! voice loop (audio), the voice chat (text) or up to the first audio (ttft), merge shard
//! outputs, score them with reports and plots, and make a small spoken fixture set.

mod audio;
mod fixture;
mod merge;
mod outcome;
mod progress;
mod run;
mod score;
mod spec;
mod text;
mod worker;

use anyhow::Result;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum VoicebenchCommand {
    /// Answer one subset/split, one fresh conversation per sample; a jsonl line per answer
    /// (resumes where an interrupted run stopped).
    Run(Box<run::RunArgs>),
    /// Join shard outputs into one file, checking no sample is missing or doubled.
    Merge(merge::MergeArgs),
    /// Score output files by VoiceBench's rules; write report.json, report.md and SVG plots.
    Score(score::ScoreArgs),
    /// Write a small VoiceBench-format set (parquet) spoken by flite and espeak-ng voices.
    Fixture(fixture::FixtureArgs),
}

pub fn run(command: VoicebenchCommand) -> Result<()> {
    match command {
        VoicebenchCommand::Run(a) => run::run(*a),
        VoicebenchCommand::Merge(a) => merge::run(a),
        VoicebenchCommand::Score(a) => score::run(a),
        VoicebenchCommand::Fixture(a) => fixture::run(a),
    }
}
