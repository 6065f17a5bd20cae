//! Splitting a run into shards and joining their outputs back, checking nothing is lost or doubled.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Result, VoiceBenchError};
use crate::record::Record;
use crate::sample::SampleKey;

/// Whether the sample at `index` belongs to shard `shard` of `shards` (`index % shards == shard`).
/// Deterministic and independent of the order samples are read in.
pub fn shard_of(index: u64, shard: usize, shards: usize) -> bool {
    shards > 0 && index % shards as u64 == shard as u64
}

/// How many keys to name in an error before summarising.
const MAX_NAMED: usize = 20;

fn name_keys(keys: &BTreeSet<SampleKey>) -> String {
    let mut names: Vec<String> = keys.iter().take(MAX_NAMED).map(|k| k.to_string()).collect();
    if keys.len() > MAX_NAMED {
        names.push(format!("... {} more", keys.len() - MAX_NAMED));
    }
    names.join(", ")
}

/// Join shard outputs into one list ordered by sample key.
///
/// `expected` is the full set of keys the run covers; without it, each subset/split is expected
/// to hold indices `0..=max seen`. Errors name the duplicated and the missing keys.
pub fn merge(
    outputs: impl IntoIterator<Item = Vec<Record>>,
    expected: Option<&BTreeSet<SampleKey>>,
) -> Result<Vec<Record>> {
    let mut by_key: BTreeMap<SampleKey, Record> = BTreeMap::new();
    let mut duplicated = BTreeSet::new();
    for record in outputs.into_iter().flatten() {
        let key = record.sample.clone();
        if by_key.insert(key.clone(), record).is_some() {
            duplicated.insert(key);
        }
    }
    let wanted: BTreeSet<SampleKey> = match expected {
        Some(set) => set.clone(),
        None => {
            let mut max: BTreeMap<(String, String), u64> = BTreeMap::new();
            for k in by_key.keys() {
                let m = max.entry((k.subset.clone(), k.split.clone())).or_insert(0);
                *m = (*m).max(k.index);
            }
            max.into_iter()
                .flat_map(|((subset, split), top)| {
                    (0..=top).map(move |index| SampleKey::new(&subset, &split, index))
                })
                .collect()
        }
    };
    let missing: BTreeSet<SampleKey> = wanted
        .iter()
        .filter(|k| !by_key.contains_key(k))
        .cloned()
        .collect();
    let unexpected: BTreeSet<SampleKey> = by_key
        .keys()
        .filter(|k| !wanted.contains(k))
        .cloned()
        .collect();
    let mut problems = Vec::new();
    if !duplicated.is_empty() {
        problems.push(format!("duplicated: {}", name_keys(&duplicated)));
    }
    if !missing.is_empty() {
        problems.push(format!("missing: {}", name_keys(&missing)));
    }
    if !unexpected.is_empty() {
        problems.push(format!("not in the run: {}", name_keys(&unexpected)));
    }
    if problems.is_empty() {
        Ok(by_key.into_values().collect())
    } else {
        Err(VoiceBenchError::Merge(problems.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::Sample;

    fn rec(index: u64) -> Record {
        let s = Sample {
            sample_key: SampleKey::new("bbh", "test", index),
            ..Default::default()
        };
        Record::from_sample(&s, format!("r{index}"))
    }

    #[test]
    fn shards_partition_indices() {
        for index in 0..20u64 {
            let owners = (0..3).filter(|&i| shard_of(index, i, 3)).count();
            assert_eq!(owners, 1);
        }
        assert!(!shard_of(0, 0, 0));
    }

    #[test]
    fn merge_orders_and_reports_gaps_and_doubles() -> Result<()> {
        let shard0: Vec<Record> = (0..6).filter(|i| shard_of(*i, 0, 2)).map(rec).collect();
        let shard1: Vec<Record> = (0..6).filter(|i| shard_of(*i, 1, 2)).map(rec).collect();
        let merged = merge([shard1.clone(), shard0.clone()], None)?;
        assert_eq!(
            merged.iter().map(|r| r.sample.index).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4, 5]
        );

        let gap = merge([shard0.clone(), vec![rec(1), rec(5)]], None);
        let Err(VoiceBenchError::Merge(msg)) = gap else {
            panic!("expected a merge error");
        };
        assert!(msg.contains("missing: bbh/test/3"), "{msg}");

        let double = merge([shard0.clone(), shard0.clone(), shard1.clone()], None);
        let Err(VoiceBenchError::Merge(msg)) = double else {
            panic!("expected a merge error");
        };
        assert!(
            msg.contains("duplicated: bbh/test/0, bbh/test/2, bbh/test/4"),
            "{msg}"
        );

        // With the expected set, a missing tail index is caught too.
        let expected: BTreeSet<SampleKey> = (0..7).map(|i| rec(i).sample).collect();
        let tail = merge([shard0, shard1], Some(&expected));
        assert!(matches!(tail, Err(VoiceBenchError::Merge(m)) if m.contains("bbh/test/6")));
        Ok(())
    }
}
