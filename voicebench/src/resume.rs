//! Resuming an interrupted run: which samples are done, with a torn last line cut off.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::path::Path;

use crate::error::{Result, VoiceBenchError};
use crate::record::{Record, parse_lines};
use crate::sample::SampleKey;

/// What an existing partial output holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumeState {
    pub done: BTreeSet<SampleKey>,
    /// Bytes of whole, parseable lines; anything after is a line torn by the interruption.
    pub valid_len: u64,
}

/// Read a partial jsonl output. A missing file means nothing is done. Only the last line may be
/// broken (an interrupted write); a bad line elsewhere is an error.
pub fn read_resume_state(path: &Path) -> Result<ResumeState> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(ResumeState {
                done: BTreeSet::new(),
                valid_len: 0,
            });
        }
        Err(e) => return Err(VoiceBenchError::io(path, e)),
    };
    // Whole lines end in '\n'; a tail without one is torn unless it parses.
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let head = String::from_utf8_lossy(&bytes[..complete]);
    let mut records: Vec<Record> = parse_lines(&head, path)?;
    let mut valid_len = complete as u64;
    let tail = String::from_utf8_lossy(&bytes[complete..]);
    if !tail.trim().is_empty()
        && let Ok(r) = serde_json::from_str::<Record>(&tail)
    {
        records.push(r);
        valid_len = bytes.len() as u64;
    }
    Ok(ResumeState {
        done: records.into_iter().map(|r| r.sample).collect(),
        valid_len,
    })
}

/// Open `path` for appending after cutting off a torn last line; returns the done keys too.
/// A whole last line that lacked its newline gets one, so the next record starts a new line.
pub fn open_for_resume(path: &Path) -> Result<(BTreeSet<SampleKey>, File)> {
    let state = read_resume_state(path)?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| VoiceBenchError::io(path, e))?;
    file.set_len(state.valid_len)
        .map_err(|e| VoiceBenchError::io(path, e))?;
    let ends_with_newline = std::fs::read(path)
        .map(|b| b.last().is_none_or(|&c| c == b'\n'))
        .map_err(|e| VoiceBenchError::io(path, e))?;
    if !ends_with_newline {
        use std::io::Write;
        file.write_all(b"\n")
            .map_err(|e| VoiceBenchError::io(path, e))?;
    }
    Ok((state.done, file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::append_record;
    use crate::sample::Sample;

    fn record(index: u64) -> Record {
        let s = Sample {
            sample_key: SampleKey::new("mmsu", "law", index),
            prompt: format!("q{index}"),
            ..Default::default()
        };
        Record::from_sample(&s, "the answer is a")
    }

    #[test]
    fn torn_last_line_is_dropped_and_cut() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| VoiceBenchError::io("tempdir", e))?;
        let path = dir.path().join("out.jsonl");
        assert!(read_resume_state(&path)?.done.is_empty());
        let mut text = String::new();
        for i in 0..2 {
            text.push_str(&record(i).to_json_line()?);
            text.push('\n');
        }
        let torn = record(2).to_json_line()?;
        text.push_str(&torn[..torn.len() / 2]);
        std::fs::write(&path, &text).map_err(|e| VoiceBenchError::io(&path, e))?;

        let (done, mut file) = open_for_resume(&path)?;
        assert_eq!(done.iter().map(|k| k.index).collect::<Vec<_>>(), vec![0, 1]);
        append_record(&mut file, &record(2), &path)?;
        drop(file);
        let all = crate::record::read_records(&path)?;
        assert_eq!(all.len(), 3);
        assert_eq!(all[2], record(2));
        Ok(())
    }

    #[test]
    fn bad_line_in_the_middle_is_an_error() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| VoiceBenchError::io("tempdir", e))?;
        let path = dir.path().join("out.jsonl");
        let text = format!(
            "{}\nnot json\n{}\n",
            record(0).to_json_line()?,
            record(1).to_json_line()?
        );
        std::fs::write(&path, text).map_err(|e| VoiceBenchError::io(&path, e))?;
        assert!(matches!(
            read_resume_state(&path),
            Err(VoiceBenchError::Jsonl { line: 2, .. })
        ));
        Ok(())
    }
}
