//! VoiceBench harness, data and scoring half: read the published `hlt-lab/voicebench` parquet
//! (or a `samples.jsonl` folder), write output lines VoiceBench's `evaluate.py` reads unchanged,
//! score them offline by VoiceBench's rules, and shard/merge/resume runs.
//!
//! The runner that drives the voice loop calls: [`load_split`] → pick its shard with
//! [`shard_of`] → for each [`Sample`] make a [`Record::from_sample`] and [`append_record`] →
//! [`merge`] the shards → [`score_records`] → [`report::write_folder`] (report.json, report.md,
//! SVG plots). Subsets needing an LLM judge are left for VoiceBench's `api_judge.py`.

mod arrow_json;
pub mod audio;
mod data;
mod error;
pub mod fixture;
pub mod jsonl_folder;
mod locate;
mod output;
mod parquet_read;
mod parquet_write;
mod record;
pub mod report;
mod resume;
mod sample;
pub mod score;
mod shard;
mod subset;

pub use audio::{DecodedAudio, decode_audio_bytes, encode_wav_16bit};
pub use data::load_split;
pub use error::{Result, VoiceBenchError};
pub use jsonl_folder::read_jsonl_folder;
pub use locate::find_parquet_files;
pub use output::{Shard, output_path};
pub use parquet_read::read_parquet_files;
pub use parquet_write::write_parquet;
pub use record::{Record, append_record, read_records, write_records};
pub use resume::{ResumeState, open_for_resume, read_resume_state};
pub use sample::{AudioClip, InstructionKwargs, Sample, SampleKey};
pub use score::{ScoreOptions, SubsetScore, score_jsonl, score_records};
pub use shard::{merge, shard_of};
pub use subset::{MMSU_DOMAINS, SD_QA_REGIONS, ScorerKind, Subset};
