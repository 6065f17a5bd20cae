//! Finding a subset/split's data under a download directory, in the layouts users end up with.

use std::path::{Path, PathBuf};

use crate::error::{Result, VoiceBenchError};

/// The layouts searched, in order; the first that matches any file wins:
///
/// 1. Hugging Face repo layout: `DIR/<subset>/<split>-*.parquet`
///    (e.g. `sd-qa/usa-00000-of-00001.parquet`, `bbh/test-00000-of-00001.parquet`);
/// 2. `DIR/data/<subset>-<split>*.parquet`;
/// 3. flat: `DIR/<subset>-<split>.parquet` or `DIR/<subset>-<split>-*.parquet`.
///
/// Several shard files of one split are returned sorted by name, which is row order.
pub fn find_parquet_files(dir: &Path, subset: &str, split: &str) -> Result<Vec<PathBuf>> {
    let candidates = [
        (dir.join(subset), format!("{split}-"), false),
        (dir.join("data"), format!("{subset}-{split}"), false),
        (dir.to_path_buf(), format!("{subset}-{split}"), true),
    ];
    for (folder, prefix, exact_or_dash) in &candidates {
        let Ok(entries) = std::fs::read_dir(folder) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
                    return false;
                };
                let Some(stem) = name.strip_suffix(".parquet") else {
                    return false;
                };
                match stem.strip_prefix(prefix.as_str()) {
                    // Flat layout: exactly `<subset>-<split>` or followed by `-`, so that
                    // split `ind` does not pick up `ind_n`.
                    Some(rest) if *exact_or_dash => rest.is_empty() || rest.starts_with('-'),
                    Some(rest) => prefix.ends_with('-') || rest.is_empty() || rest.starts_with('-'),
                    None => false,
                }
            })
            .collect();
        if !found.is_empty() {
            found.sort();
            return Ok(found);
        }
    }
    Err(VoiceBenchError::NoDataFile {
        dir: dir.to_path_buf(),
        subset: subset.to_string(),
        split: split.to_string(),
        looked_for: format!(
            "{subset}/{split}-*.parquet, data/{subset}-{split}*.parquet, {subset}-{split}.parquet"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: PathBuf) -> Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| VoiceBenchError::io(parent, e))?;
        }
        std::fs::write(&path, b"").map_err(|e| VoiceBenchError::io(&path, e))
    }

    #[test]
    fn finds_each_layout_and_keeps_splits_apart() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| VoiceBenchError::io("tempdir", e))?;
        let d = dir.path();
        touch(d.join("sd-qa/ind_n-00000-of-00001.parquet"))?;
        touch(d.join("sd-qa/ind_s-00000-of-00001.parquet"))?;
        touch(d.join("bbh/test-00001-of-00002.parquet"))?;
        touch(d.join("bbh/test-00000-of-00002.parquet"))?;
        touch(d.join("data/openbookqa-test-00000-of-00001.parquet"))?;
        touch(d.join("ifeval-test.parquet"))?;

        let sdqa = find_parquet_files(d, "sd-qa", "ind_n")?;
        assert_eq!(sdqa.len(), 1);
        assert!(sdqa[0].ends_with("ind_n-00000-of-00001.parquet"));
        let bbh = find_parquet_files(d, "bbh", "test")?;
        assert!(bbh[0].ends_with("test-00000-of-00002.parquet") && bbh.len() == 2);
        assert_eq!(find_parquet_files(d, "openbookqa", "test")?.len(), 1);
        assert_eq!(find_parquet_files(d, "ifeval", "test")?.len(), 1);
        assert!(matches!(
            find_parquet_files(d, "mmsu", "law"),
            Err(VoiceBenchError::NoDataFile { .. })
        ));
        Ok(())
    }
}
