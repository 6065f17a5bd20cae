//! One process's share of a run and the file it writes: the shard `i/n` and
//! `OUTDIR/<subset>-<split>[.shard-i-of-n].jsonl`.

use std::path::{Path, PathBuf};
use std::str::FromStr;

/// One shard of a run: samples whose index % `count` == `index` (`index` counts from 0, like
/// `JOB_COMPLETION_INDEX` and `SLURM_ARRAY_TASK_ID`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("shard {s:?}: expected i/n, e.g. 0/4"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|e| format!("shard index {i:?}: {e}"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|e| format!("shard count {n:?}: {e}"))?;
        if count == 0 || index >= count {
            return Err(format!("shard {s:?}: need 0 <= i < n"));
        }
        Ok(Self { index, count })
    }
}

/// `OUTDIR/<subset>-<split>[.shard-i-of-n].jsonl`.
pub fn output_path(out: &Path, subset: &str, split: &str, shard: Option<Shard>) -> PathBuf {
    let name = match shard {
        Some(s) => format!("{subset}-{split}.shard-{}-of-{}.jsonl", s.index, s.count),
        None => format!("{subset}-{split}.jsonl"),
    };
    out.join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_parses_and_names_the_file() {
        let s: Shard = "1/4".parse().expect("valid");
        assert_eq!((s.index, s.count), (1, 4));
        assert!("4/4".parse::<Shard>().is_err());
        assert!("0/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
        let p = output_path(Path::new("o"), "bbh", "test", Some(s));
        assert_eq!(p, Path::new("o/bbh-test.shard-1-of-4.jsonl"));
        assert_eq!(
            output_path(Path::new("o"), "bbh", "test", None),
            Path::new("o/bbh-test.jsonl")
        );
    }
}
