//! Reading VoiceBench parquet files (Hugging Face `datasets` layout) into samples.

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

use crate::arrow_json::cell_to_json;
use crate::error::{Result, VoiceBenchError};
use crate::sample::{AudioClip, InstructionKwargs, Sample, SampleKey};

fn parquet_error(path: &Path, e: impl std::fmt::Display) -> VoiceBenchError {
    VoiceBenchError::Parquet {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn column_error(path: &Path, column: &str, problem: impl Into<String>) -> VoiceBenchError {
    VoiceBenchError::Column {
        path: path.to_path_buf(),
        column: column.to_string(),
        problem: problem.into(),
    }
}

/// Read all rows of the given files (in order) as samples of `subset/split`, numbering them from
/// `first_index`. Audio stays encoded until [`Sample::decode_audio`].
pub fn read_parquet_files(
    paths: &[impl AsRef<Path>],
    subset: &str,
    split: &str,
) -> Result<Vec<Sample>> {
    let mut samples = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| VoiceBenchError::io(path, e))?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .and_then(|b| b.with_batch_size(64).build())
            .map_err(|e| parquet_error(path, e))?;
        for batch in reader {
            let batch = batch.map_err(|e| parquet_error(path, e))?;
            let first = samples.len() as u64;
            read_batch(&batch, path, subset, split, first, &mut samples)?;
        }
    }
    Ok(samples)
}

fn audio_cell(col: &ArrayRef, row: usize, path: &Path) -> Result<Option<AudioClip>> {
    if col.is_null(row) {
        return Ok(None);
    }
    let DataType::Struct(_) = col.data_type() else {
        return Err(column_error(
            path,
            "audio",
            "is not a struct of `bytes` and `path`",
        ));
    };
    let s = col.as_struct();
    let bytes = match s.column_by_name("bytes") {
        Some(b) if b.is_null(row) => None,
        Some(b) => match b.data_type() {
            DataType::Binary => Some(b.as_binary::<i32>().value(row).to_vec()),
            DataType::LargeBinary => Some(b.as_binary::<i64>().value(row).to_vec()),
            DataType::BinaryView => Some(b.as_binary_view().value(row).to_vec()),
            other => {
                return Err(column_error(
                    path,
                    "audio.bytes",
                    format!("has type {other}, not binary"),
                ));
            }
        },
        None => return Err(column_error(path, "audio", "has no `bytes` field")),
    };
    let name = s
        .column_by_name("path")
        .and_then(|p| cell_to_json(p, row).as_str().map(str::to_string));
    Ok(bytes.map(|bytes| AudioClip { bytes, path: name }))
}

fn read_batch(
    batch: &RecordBatch,
    path: &Path,
    subset: &str,
    split: &str,
    first_index: u64,
    out: &mut Vec<Sample>,
) -> Result<()> {
    let schema = batch.schema();
    let audio = batch.column_by_name("audio");
    if batch.column_by_name("prompt").is_none() {
        return Err(column_error(path, "prompt", "is missing"));
    }
    for row in 0..batch.num_rows() {
        let mut fields = serde_json::Map::new();
        for (field, col) in schema.fields().iter().zip(batch.columns()) {
            if field.name() != "audio" {
                fields.insert(field.name().clone(), cell_to_json(col, row));
            }
        }
        let index = first_index + row as u64;
        let mut sample = sample_from_fields(fields, path, index)?;
        sample.sample_key = SampleKey::new(subset, split, index);
        sample.audio = match audio {
            Some(col) => audio_cell(col, row, path)?,
            None => None,
        };
        out.push(sample);
    }
    Ok(())
}

fn take_string(fields: &mut serde_json::Map<String, Value>, name: &str) -> Option<String> {
    match fields.remove(name) {
        Some(Value::String(s)) => Some(s),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    }
}

/// Build a sample from a row's non-audio columns (shared with the jsonl folder reader).
pub(crate) fn sample_from_fields(
    mut fields: serde_json::Map<String, Value>,
    path: &Path,
    index: u64,
) -> Result<Sample> {
    let bad = |column: &str, e: serde_json::Error| {
        column_error(path, column, format!("row {index}: {e}"))
    };
    let prompt = take_string(&mut fields, "prompt")
        .ok_or_else(|| column_error(path, "prompt", format!("row {index} is empty")))?;
    let key = match fields.remove("key") {
        Some(Value::Null) | None => None,
        Some(v) => Some(serde_json::from_value::<i64>(v).map_err(|e| bad("key", e))?),
    };
    let instruction_id_list = match fields.remove("instruction_id_list") {
        Some(Value::Null) | None => None,
        Some(v) => Some(
            serde_json::from_value::<Vec<String>>(v).map_err(|e| bad("instruction_id_list", e))?,
        ),
    };
    let kwargs = match fields.remove("kwargs") {
        Some(Value::Null) | None => None,
        // Some exports store kwargs as a JSON string.
        Some(Value::String(s)) => {
            Some(serde_json::from_str::<Vec<InstructionKwargs>>(&s).map_err(|e| bad("kwargs", e))?)
        }
        Some(v) => Some(
            serde_json::from_value::<Vec<InstructionKwargs>>(v).map_err(|e| bad("kwargs", e))?,
        ),
    };
    Ok(Sample {
        sample_key: SampleKey::default(),
        reference: take_string(&mut fields, "reference"),
        id: take_string(&mut fields, "id"),
        prompt,
        key,
        instruction_id_list,
        kwargs,
        extra: fields.into_iter().filter(|(_, v)| !v.is_null()).collect(),
        audio: None,
    })
}
