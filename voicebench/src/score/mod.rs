//! Offline scoring of output records, per subset and split, by VoiceBench's rules.

pub mod bbh;
mod bbh_rules;
pub mod harm;
pub mod ifeval;
pub mod mcq;
mod mcq_templates;
mod pytext;
mod refusals;

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Result, VoiceBenchError};
use crate::record::{Record, read_records};
use crate::subset::{ScorerKind, Subset};
use pocket_stats::Rng;

/// Scoring settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScoreOptions {
    /// Seed of the random fallback (VoiceBench uses Python's unseeded `random`).
    pub seed: u64,
}

/// The result for one subset/split.
#[derive(Debug, Clone, PartialEq)]
pub struct SubsetScore {
    pub subset: Subset,
    pub split: String,
    pub kind: ScorerKind,
    pub n: usize,
    /// Leaderboard scale (percent); `None` for subsets that need an external judge.
    pub score: Option<f64>,
    /// VoiceBench's own output keys and scales: `acc`/`fail` (percent) for mcq and bbh,
    /// `refusal_rate` (0..1) for harm, `strict-prompt` ... `final` (0..1) for ifeval.
    pub metrics: BTreeMap<String, f64>,
    /// Responses scored by a random fallback (mcq, bbh) or instructions that could not be
    /// built (ifeval).
    pub fallbacks: usize,
    pub note: Option<String>,
}

impl std::fmt::Display for SubsetScore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{} n={}", self.subset, self.split, self.n)?;
        match self.score {
            Some(s) => write!(f, " score={s:.2}")?,
            None => write!(f, " score=-")?,
        }
        for (k, v) in &self.metrics {
            write!(f, " {k}={v:.4}")?;
        }
        if self.fallbacks > 0 {
            write!(f, " fallbacks={}", self.fallbacks)?;
        }
        if let Some(note) = &self.note {
            write!(f, " ({note})")?;
        }
        Ok(())
    }
}

fn need<'a, T>(value: &'a Option<T>, r: &Record, field: &'static str) -> Result<&'a T> {
    value.as_ref().ok_or_else(|| VoiceBenchError::MissingField {
        subset: r.sample.subset.clone(),
        index: r.sample.index,
        field,
    })
}

fn score_group(
    subset: Subset,
    split: String,
    records: &[&Record],
    rng: &mut Rng,
) -> Result<SubsetScore> {
    let kind = subset.scorer();
    let n = records.len();
    let percent = |a: usize| {
        if n == 0 {
            0.0
        } else {
            100.0 * a as f64 / n as f64
        }
    };
    let mut metrics = BTreeMap::new();
    let mut out = SubsetScore {
        subset,
        split,
        kind,
        n,
        score: None,
        metrics: BTreeMap::new(),
        fallbacks: 0,
        note: None,
    };
    match kind {
        ScorerKind::MultipleChoice => {
            let mut pairs = Vec::with_capacity(n);
            for r in records {
                pairs.push((
                    r.response.as_str(),
                    need(&r.reference, r, "reference")?.as_str(),
                ));
            }
            let o = mcq::score_mcq(pairs, rng);
            metrics.insert("acc".into(), percent(o.correct));
            metrics.insert("fail".into(), percent(o.fallbacks));
            out.score = Some(percent(o.correct));
            out.fallbacks = o.fallbacks;
        }
        ScorerKind::BigBenchHard => {
            let mut correct = 0;
            for r in records {
                let id = need(&r.id, r, "id")?;
                let task = bbh::BbhTask::from_id(id).ok_or_else(|| VoiceBenchError::MissingField {
                    subset: r.sample.subset.clone(),
                    index: r.sample.index,
                    field: "id naming one of sports_understanding, hyperbaton, navigate, web_of_lies",
                })?;
                let truth = bbh::reference_answer(need(&r.reference, r, "reference")?).ok_or_else(
                    || VoiceBenchError::MissingField {
                        subset: r.sample.subset.clone(),
                        index: r.sample.index,
                        field: "reference of yes/no/(A)/(B)",
                    },
                )?;
                let (ok, fell_back) = bbh::score_one(task, &r.response, truth, rng);
                correct += usize::from(ok);
                out.fallbacks += usize::from(fell_back);
            }
            metrics.insert("acc".into(), percent(correct));
            metrics.insert("fail".into(), percent(out.fallbacks));
            out.score = Some(percent(correct));
        }
        ScorerKind::Refusal => {
            let refused = records
                .iter()
                .filter(|r| harm::is_refusal(&r.response))
                .count();
            let rate = if n == 0 {
                0.0
            } else {
                refused as f64 / n as f64
            };
            metrics.insert("refusal_rate".into(), rate);
            out.score = Some(100.0 * rate);
        }
        ScorerKind::InstructionFollowing => {
            let mut items = Vec::with_capacity(n);
            for r in records {
                items.push(ifeval::IfevalItem {
                    prompt: &r.prompt,
                    response: &r.response,
                    instruction_id_list: need(&r.instruction_id_list, r, "instruction_id_list")?,
                    kwargs: need(&r.kwargs, r, "kwargs")?,
                });
            }
            let o = ifeval::score_ifeval(&items);
            metrics.insert("strict-prompt".into(), o.strict_prompt);
            metrics.insert("strict-instruction".into(), o.strict_instruction);
            metrics.insert("loose-prompt".into(), o.loose_prompt);
            metrics.insert("loose-instruction".into(), o.loose_instruction);
            metrics.insert("final".into(), o.final_score);
            out.score = Some(100.0 * o.final_score);
            out.fallbacks = o.unbuildable.len();
            if let Some(first) = o.unbuildable.first() {
                out.note = Some(format!(
                    "{} instructions not buildable, e.g. {first}",
                    o.unbuildable.len()
                ));
            }
        }
        ScorerKind::ExternalJudge => {
            out.note = Some(format!(
                "needs an external judge: VoiceBench api_judge.py, then evaluate.py --evaluator {}",
                subset.voicebench_evaluator()
            ));
        }
    }
    out.metrics = metrics;
    Ok(out)
}

/// Score records, grouped by `subset/split` of their sample key, in key order. One seeded
/// generator serves all groups in that order, so results are reproducible.
pub fn score_records(records: &[Record], options: &ScoreOptions) -> Result<Vec<SubsetScore>> {
    let mut groups: BTreeMap<(Subset, String), Vec<&Record>> = BTreeMap::new();
    for r in records {
        let subset = Subset::from_name(&r.sample.subset)?;
        groups
            .entry((subset, r.sample.split.clone()))
            .or_default()
            .push(r);
    }
    let mut rng = Rng::new(options.seed);
    groups
        .into_iter()
        .map(|((subset, split), mut rs)| {
            rs.sort_by_key(|r| r.sample.index);
            score_group(subset, split, &rs, &mut rng)
        })
        .collect()
}

/// Read a jsonl output file and score it.
pub fn score_jsonl(path: &Path, options: &ScoreOptions) -> Result<Vec<SubsetScore>> {
    score_records(&read_records(path)?, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{Sample, SampleKey};

    fn rec(
        subset: &str,
        index: u64,
        response: &str,
        reference: Option<&str>,
        id: Option<&str>,
    ) -> Record {
        let s = Sample {
            sample_key: SampleKey::new(subset, "test", index),
            prompt: format!("prompt {index}"),
            reference: reference.map(str::to_string),
            id: id.map(str::to_string),
            ..Default::default()
        };
        Record::from_sample(&s, response)
    }

    #[test]
    fn groups_score_by_their_subset_rules() -> Result<()> {
        let records = vec![
            rec("openbookqa", 0, "The answer is B.", Some("B"), None),
            rec("openbookqa", 1, "the answer is c", Some("A"), None),
            rec("advbench", 0, "I'm sorry, I can't.", None, None),
            rec("advbench", 1, "Sure: step one...", None, None),
            rec(
                "bbh",
                0,
                "The answer is yes.",
                Some("yes"),
                Some("sports_understanding_1"),
            ),
            rec("alpacaeval", 0, "Paris is nice.", None, None),
        ];
        let scores = score_records(&records, &ScoreOptions::default())?;
        let by: BTreeMap<&str, &SubsetScore> =
            scores.iter().map(|s| (s.subset.name(), s)).collect();
        assert_eq!(by["openbookqa"].score, Some(50.0));
        assert_eq!(by["openbookqa"].metrics["fail"], 0.0);
        assert_eq!(by["advbench"].metrics["refusal_rate"], 0.5);
        assert_eq!(by["bbh"].score, Some(100.0));
        assert_eq!(by["alpacaeval"].score, None);
        assert!(by["alpacaeval"].to_string().contains("external judge"));
        Ok(())
    }

    #[test]
    fn missing_reference_is_a_clear_error() {
        let records = vec![rec("mmsu", 3, "a", None, None)];
        let err = score_records(&records, &ScoreOptions::default());
        assert!(matches!(
            err,
            Err(VoiceBenchError::MissingField {
                index: 3,
                field: "reference",
                ..
            })
        ));
    }
}
