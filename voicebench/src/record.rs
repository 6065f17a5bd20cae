//! The per-sample output line: VoiceBench `main.py`'s fields plus ours, and jsonl reading/writing.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Result, VoiceBenchError};
use crate::sample::{InstructionKwargs, Sample, SampleKey};

/// One jsonl line. VoiceBench's `main.py` writes every dataset column but `audio`, plus
/// `response`; fields a subset lacks are left out (not `null`), because VoiceBench's judge script
/// picks its QA prompt by `"reference" in item`. So `evaluate.py` and `api_judge.py` read our
/// files unchanged; they ignore the extra fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub prompt: String,
    pub response: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction_id_list: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kwargs: Option<Vec<InstructionKwargs>>,
    /// Ours: which sample this answers (`subset/split/index`), for sharding, merge and resume.
    pub sample: SampleKey,
    /// Ours: what the ASR heard, when the run went through speech recognition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// Ours: stage name -> milliseconds (e.g. `asr`, `llm_first_token`, `first_audio`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub timings: BTreeMap<String, f64>,
    /// Ours: where the spoken reply was saved, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_path: Option<String>,
    /// Other dataset columns, and fields added later (e.g. the judge's `score`), kept as is.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Record {
    /// The line for `sample` answered with `response`, carrying the sample's reference fields.
    pub fn from_sample(sample: &Sample, response: impl Into<String>) -> Record {
        Record {
            prompt: sample.prompt.clone(),
            response: response.into(),
            reference: sample.reference.clone(),
            id: sample.id.clone(),
            key: sample.key,
            instruction_id_list: sample.instruction_id_list.clone(),
            kwargs: sample.kwargs.clone(),
            sample: sample.sample_key.clone(),
            transcript: None,
            timings: BTreeMap::new(),
            audio_path: None,
            extra: sample.extra.clone(),
        }
    }

    /// One jsonl line, without the newline.
    pub fn to_json_line(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| VoiceBenchError::Write(e.to_string()))
    }
}

/// Append one record as a line and flush, so an interrupted run loses at most that line.
pub fn append_record(out: &mut impl Write, record: &Record, path: &Path) -> Result<()> {
    let line = record.to_json_line()?;
    out.write_all(line.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(|e| VoiceBenchError::io(path, e))
}

/// Write records to a new jsonl file (replacing it).
pub fn write_records(path: &Path, records: &[Record]) -> Result<()> {
    let mut file = std::fs::File::create(path).map_err(|e| VoiceBenchError::io(path, e))?;
    for r in records {
        append_record(&mut file, r, path)?;
    }
    Ok(())
}

/// Read every line of a jsonl output file; any bad line is an error naming its line number.
pub fn read_records(path: &Path) -> Result<Vec<Record>> {
    let text = std::fs::read_to_string(path).map_err(|e| VoiceBenchError::io(path, e))?;
    parse_lines(&text, path)
}

pub(crate) fn parse_lines(text: &str, path: &Path) -> Result<Vec<Record>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| VoiceBenchError::Jsonl {
                path: path.to_path_buf(),
                line: i + 1,
                message: e.to_string(),
            })
        })
        .collect()
}
