//! A report folder: report.json, the SVG plots that have data, and report.md linking them.

use std::path::{Path, PathBuf};

use super::{build, markdown, write_plots};
use crate::error::{Result, VoiceBenchError};
use crate::record::Record;
use crate::score::SubsetScore;

/// Writes the report of `records` (read from `files`) and their `scores` into `dir`, creating
/// it; returns the path of report.md.
pub fn write_folder(
    dir: &Path,
    files: Vec<String>,
    records: &[Record],
    scores: &[SubsetScore],
) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)
        .map_err(|e| VoiceBenchError::fs(format!("creating {}", dir.display()), e))?;
    let rep = build(files, records, scores);
    let json = serde_json::to_string_pretty(&rep).map_err(VoiceBenchError::ReportJson)?;
    std::fs::write(dir.join("report.json"), json)
        .map_err(|e| VoiceBenchError::fs("writing report.json", e))?;
    let written = write_plots(dir, &rep, records)?;
    let md = dir.join("report.md");
    std::fs::write(&md, markdown(&rep, &written))
        .map_err(|e| VoiceBenchError::fs("writing report.md", e))?;
    Ok(md)
}
