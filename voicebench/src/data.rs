//! One entry point for loading a subset/split from any supported source directory.

use std::path::Path;

use crate::error::Result;
use crate::jsonl_folder::{SAMPLES_FILE, read_jsonl_folder};
use crate::locate::find_parquet_files;
use crate::parquet_read::read_parquet_files;
use crate::sample::Sample;

/// Load `subset/split` from `dir`: a folder with `samples.jsonl` is read as a jsonl folder
/// (see [`crate::jsonl_folder`]); otherwise parquet files are found by
/// [`find_parquet_files`]'s layouts.
pub fn load_split(dir: &Path, subset: &str, split: &str) -> Result<Vec<Sample>> {
    if dir.join(SAMPLES_FILE).is_file() {
        return read_jsonl_folder(dir, subset, split);
    }
    let files = find_parquet_files(dir, subset, split)?;
    read_parquet_files(&files, subset, split)
}
