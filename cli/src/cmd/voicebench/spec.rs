//! Small typed arguments of `voicebench run`: the modality, how a turn ends, and the shard
//! `i/n`.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use clap::ValueEnum;

/// What a sample goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Modality {
    /// The sample's audio through the whole voice loop (VAD, ASR, LLM, TTS, output).
    Audio,
    /// The sample's prompt text straight to the voice chat (no speech).
    Text,
    /// Like `audio`, but the reply is stopped as soon as its first audio plays: the latency
    /// of the whole loop without waiting for the rest of the answer (responses are partial).
    Ttft,
}

/// How a sample's turn ends (audio, ttft).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TurnEnd {
    /// The whole sample is one user turn: the loop is told where its speech ends, as a
    /// push-to-talk release would, so no pause inside it ends the turn.
    Sample,
    /// The loop's own endpointing (`--endpoint`) decides, as in hands-free use: a long pause
    /// inside a sample may end a turn there (the record then counts and joins every turn).
    Natural,
}

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
