//! The crate's one error type: each variant says what was wrong and what the caller can fix.

use std::path::PathBuf;

/// Everything that can go wrong while reading data, scoring or merging outputs.
#[derive(Debug, thiserror::Error)]
pub enum VoiceBenchError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a readable parquet file: {message}")]
    Parquet { path: PathBuf, message: String },
    #[error("{path}: column `{column}` {problem}")]
    Column {
        path: PathBuf,
        column: String,
        problem: String,
    },
    #[error(
        "no data file for subset `{subset}` split `{split}` under {dir} (looked for {looked_for})"
    )]
    NoDataFile {
        dir: PathBuf,
        subset: String,
        split: String,
        looked_for: String,
    },
    #[error("unknown VoiceBench subset `{0}`")]
    UnknownSubset(String),
    #[error("audio of {what}: {message}")]
    Audio { what: String, message: String },
    #[error("{path}:{line}: {message}")]
    Jsonl {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{subset}: record {index} lacks `{field}`, which its scorer needs")]
    MissingField {
        subset: String,
        index: u64,
        field: &'static str,
    },
    #[error("ifeval record {index}: {message}")]
    Instruction { index: u64, message: String },
    #[error("merge: {0}")]
    Merge(String),
    #[error("parquet writer: {0}")]
    Write(String),
    /// A file or folder of a report or fixture set could not be made (`doing` names it).
    #[error("{doing}: {source}")]
    Fs {
        doing: String,
        source: std::io::Error,
    },
    #[error("writing {path}: {source}")]
    Writing {
        path: PathBuf,
        source: Box<VoiceBenchError>,
    },
    #[error("running {program} (install the Debian package {program}): {source}")]
    VoiceMissing {
        program: &'static str,
        source: std::io::Error,
    },
    #[error("{program} -voice {voice} failed: {stderr}")]
    VoiceFailed {
        program: &'static str,
        voice: &'static str,
        stderr: String,
    },
    #[error("{path}: {found} Hz after {expected} Hz")]
    VoiceRate {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("drawing a plot: {0}")]
    Plot(String),
    #[error("the report as JSON: {0}")]
    ReportJson(serde_json::Error),
}

impl VoiceBenchError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn fs(doing: impl Into<String>, source: std::io::Error) -> Self {
        Self::Fs {
            doing: doing.into(),
            source,
        }
    }
}

pub type Result<T> = std::result::Result<T, VoiceBenchError>;
