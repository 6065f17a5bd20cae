//! Writing samples as parquet in VoiceBench's schema (for fixture sets that load like the real one).

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use serde_json::{Value, json};

use crate::error::{Result, VoiceBenchError};
use crate::sample::{KWARGS_INT_FIELDS, Sample};

fn write_error(e: impl std::fmt::Display) -> VoiceBenchError {
    VoiceBenchError::Write(e.to_string())
}

fn strings(values: impl Iterator<Item = Option<String>>) -> ArrayRef {
    let mut b = StringBuilder::new();
    values.for_each(|v| b.append_option(v));
    Arc::new(b.finish())
}

fn ints(values: impl Iterator<Item = Option<i64>>) -> ArrayRef {
    let mut b = Int64Builder::new();
    values.for_each(|v| b.append_option(v));
    Arc::new(b.finish())
}

fn string_lists(values: impl Iterator<Item = Option<Vec<String>>>) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new());
    for v in values {
        match v {
            Some(items) => {
                items.iter().for_each(|s| b.values().append_value(s));
                b.append(true);
            }
            None => b.append(false),
        }
    }
    Arc::new(b.finish())
}

/// The Arrow type of one kwargs field: counts are int64, word lists are lists of strings.
fn kwargs_type(name: &str) -> DataType {
    if KWARGS_INT_FIELDS.contains(&name) {
        DataType::Int64
    } else if name == "keywords" || name == "forbidden_words" {
        DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
    } else {
        DataType::Utf8
    }
}

/// Every kwargs field name, in VoiceBench's published order where known.
pub(crate) const KWARGS_NAMES: &[&str] = &[
    "num_placeholders",
    "capital_relation",
    "capital_frequency",
    "keywords",
    "relation",
    "num_words",
    "let_relation",
    "letter",
    "let_frequency",
    "num_highlights",
    "prompt_to_repeat",
    "num_bullets",
    "section_spliter",
    "num_sections",
    "num_paragraphs",
    "language",
    "end_phrase",
    "forbidden_words",
    "keyword",
    "frequency",
    "num_sentences",
    "postscript_marker",
    "first_word",
    "nth_paragraph",
];

fn kwargs_column(samples: &[Sample]) -> Result<(Field, ArrayRef)> {
    let entries: Vec<serde_json::Map<String, Value>> = samples
        .iter()
        .flat_map(|s| s.kwargs.iter().flatten())
        .map(|k| match serde_json::to_value(k) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err(write_error("kwargs did not serialize to an object")),
            Err(e) => Err(write_error(e)),
        })
        .collect::<Result<_>>()?;
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for name in KWARGS_NAMES {
        let ty = kwargs_type(name);
        let values = entries
            .iter()
            .map(|m| m.get(*name).cloned().unwrap_or(Value::Null));
        let array = match &ty {
            DataType::Int64 => ints(values.map(|v| v.as_i64())),
            DataType::List(_) => string_lists(values.map(|v| {
                serde_json::from_value::<Option<Vec<String>>>(v)
                    .ok()
                    .flatten()
            })),
            _ => strings(values.map(|v| v.as_str().map(str::to_string))),
        };
        fields.push(Field::new(*name, ty, true));
        columns.push(array);
    }
    let item =
        StructArray::try_new(Fields::from(fields.clone()), columns, None).map_err(write_error)?;
    let item_field = Arc::new(Field::new(
        "item",
        DataType::Struct(Fields::from(fields)),
        true,
    ));
    let lengths = samples
        .iter()
        .map(|s| s.kwargs.as_ref().map_or(0, Vec::len));
    let nulls = samples
        .iter()
        .map(|s| s.kwargs.is_some())
        .collect::<Vec<_>>();
    let list = ListArray::try_new(
        item_field.clone(),
        OffsetBuffer::from_lengths(lengths),
        Arc::new(item),
        Some(nulls.into()),
    )
    .map_err(write_error)?;
    Ok((
        Field::new("kwargs", DataType::List(item_field), true),
        Arc::new(list),
    ))
}

fn audio_column(samples: &[Sample]) -> Result<(Field, ArrayRef)> {
    let mut bytes = BinaryBuilder::new();
    let mut paths = StringBuilder::new();
    for s in samples {
        match &s.audio {
            Some(a) => {
                bytes.append_value(&a.bytes);
                paths.append_option(a.path.as_deref());
            }
            None => {
                bytes.append_null();
                paths.append_null();
            }
        }
    }
    let fields = Fields::from(vec![
        Field::new("bytes", DataType::Binary, true),
        Field::new("path", DataType::Utf8, true),
    ]);
    let array = StructArray::try_new(
        fields.clone(),
        vec![Arc::new(bytes.finish()), Arc::new(paths.finish())],
        None,
    )
    .map_err(write_error)?;
    Ok((
        Field::new("audio", DataType::Struct(fields), true),
        Arc::new(array),
    ))
}

/// The Hugging Face `datasets` feature description stored in the file's metadata, so
/// `load_dataset("parquet", ...)` decodes `audio` as Audio like the published files.
fn hf_features(columns: &[&str]) -> Value {
    let string = json!({"dtype": "string", "_type": "Value"});
    let mut features = serde_json::Map::new();
    for c in columns {
        let f = match *c {
            "audio" => json!({"_type": "Audio"}),
            "key" => json!({"dtype": "int64", "_type": "Value"}),
            "instruction_id_list" => json!({"feature": string, "_type": "Sequence"}),
            "kwargs" => {
                let mut item = serde_json::Map::new();
                for name in KWARGS_NAMES {
                    let v = match kwargs_type(name) {
                        DataType::Int64 => json!({"dtype": "int64", "_type": "Value"}),
                        DataType::List(_) => json!({"feature": string, "_type": "Sequence"}),
                        _ => string.clone(),
                    };
                    item.insert(name.to_string(), v);
                }
                json!([item])
            }
            _ => string.clone(),
        };
        features.insert(c.to_string(), f);
    }
    json!({"info": {"features": features}})
}

/// Write `samples` to `path` in VoiceBench's column layout: `audio` (struct of `bytes`, `path`),
/// then `key`, `prompt`, `instruction_id_list`, `kwargs`, `reference`, `id` where any sample has
/// them, then string `extra` columns. Snappy-compressed, like the published files.
pub fn write_parquet(path: &Path, samples: &[Sample]) -> Result<()> {
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    let (f, c) = audio_column(samples)?;
    fields.push(f);
    columns.push(c);
    if samples.iter().any(|s| s.key.is_some()) {
        fields.push(Field::new("key", DataType::Int64, true));
        columns.push(ints(samples.iter().map(|s| s.key)));
    }
    fields.push(Field::new("prompt", DataType::Utf8, true));
    columns.push(strings(samples.iter().map(|s| Some(s.prompt.clone()))));
    if samples.iter().any(|s| s.instruction_id_list.is_some()) {
        let list = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
        fields.push(Field::new("instruction_id_list", list, true));
        columns.push(string_lists(
            samples.iter().map(|s| s.instruction_id_list.clone()),
        ));
    }
    if samples.iter().any(|s| s.kwargs.is_some()) {
        let (f, c) = kwargs_column(samples)?;
        fields.push(f);
        columns.push(c);
    }
    for (name, get) in [
        (
            "reference",
            (|s: &Sample| s.reference.clone()) as fn(&Sample) -> Option<String>,
        ),
        ("id", |s: &Sample| s.id.clone()),
    ] {
        if samples.iter().any(|s| get(s).is_some()) {
            fields.push(Field::new(name, DataType::Utf8, true));
            columns.push(strings(samples.iter().map(get)));
        }
    }
    let extra_names: std::collections::BTreeSet<&String> =
        samples.iter().flat_map(|s| s.extra.keys()).collect();
    for name in extra_names {
        fields.push(Field::new(name.as_str(), DataType::Utf8, true));
        columns.push(strings(samples.iter().map(|s| {
            s.extra
                .get(name)
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
        })));
    }
    let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
    let metadata = hf_features(&names).to_string();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns).map_err(write_error)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_key_value_metadata(Some(vec![KeyValue::new(
            "huggingface".to_string(),
            metadata,
        )]))
        .build();
    let file = File::create(path).map_err(|e| VoiceBenchError::io(path, e))?;
    let mut writer = ArrowWriter::try_new(file, schema, Some(props)).map_err(write_error)?;
    writer.write(&batch).map_err(write_error)?;
    writer.close().map_err(write_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::InstructionKwargs;

    #[test]
    fn every_kwargs_field_has_a_column() -> Result<()> {
        let Value::Object(map) =
            serde_json::to_value(InstructionKwargs::default()).map_err(write_error)?
        else {
            return Err(write_error("not an object"));
        };
        let mut fields: Vec<&str> = map.keys().map(String::as_str).collect();
        let mut names = KWARGS_NAMES.to_vec();
        fields.sort_unstable();
        names.sort_unstable();
        assert_eq!(fields, names);
        Ok(())
    }
}
