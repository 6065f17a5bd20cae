//! Reading a plain folder of `samples.jsonl` plus audio files, for hand-made or converted sets.
//!
//! Format: `DIR/samples.jsonl`, one JSON object per line, in sample order:
//! `{"prompt": "...", "audio": "clips/0001.wav", "reference": "B"}`. `prompt` is required;
//! `audio` is a path relative to `DIR` (WAV or FLAC) and may be left out for text-only items;
//! `reference`, `id`, `key`, `instruction_id_list` and `kwargs` (list of objects or a JSON
//! string) are optional and mean what they mean in the parquet data; any other field is kept in
//! `Sample::extra`. The sample index is the line number among non-empty lines, from 0.

use std::path::Path;

use serde_json::Value;

use crate::error::{Result, VoiceBenchError};
use crate::parquet_read::sample_from_fields;
use crate::sample::{AudioClip, Sample, SampleKey};

/// File name of the sample list inside the folder.
pub const SAMPLES_FILE: &str = "samples.jsonl";

/// Read `dir/samples.jsonl` as samples of `subset/split`, loading each referenced audio file.
pub fn read_jsonl_folder(dir: &Path, subset: &str, split: &str) -> Result<Vec<Sample>> {
    let list = dir.join(SAMPLES_FILE);
    let text = std::fs::read_to_string(&list).map_err(|e| VoiceBenchError::io(&list, e))?;
    let mut samples = Vec::new();
    for (line_no, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| VoiceBenchError::Jsonl {
            path: list.clone(),
            line: line_no + 1,
            message,
        };
        let Value::Object(mut fields) =
            serde_json::from_str::<Value>(line).map_err(|e| bad(e.to_string()))?
        else {
            return Err(bad("not a JSON object".into()));
        };
        let audio = match fields.remove("audio") {
            Some(Value::String(rel)) => {
                let path = dir.join(&rel);
                let bytes = std::fs::read(&path).map_err(|e| VoiceBenchError::io(&path, e))?;
                Some(AudioClip {
                    bytes,
                    path: Some(rel),
                })
            }
            Some(Value::Null) | None => None,
            Some(_) => return Err(bad("`audio` must be a relative file path".into())),
        };
        let index = samples.len() as u64;
        let mut sample = sample_from_fields(fields, &list, index)?;
        sample.sample_key = SampleKey::new(subset, split, index);
        sample.audio = audio;
        samples.push(sample);
    }
    Ok(samples)
}
