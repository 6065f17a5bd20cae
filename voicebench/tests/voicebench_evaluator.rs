//! Our mcq, bbh and harm scorers against VoiceBench's own evaluators: the picks and the
//! numbers its `evaluate.py` printed on the same responses (`data/voicebench-evaluator/`,
//! written by `make.py` from a checkout of VoiceBench).

use pocket_voicebench::score::bbh::{BbhTask, extract_answer};
use pocket_voicebench::score::harm::is_refusal;
use pocket_voicebench::score::mcq::extract_choice;
use pocket_voicebench::{Record, Sample, SampleKey, ScoreOptions, score_records};
use serde::Deserialize;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/voicebench-evaluator"
);

/// The `id`s make.py asked about, in its order (one per task).
const TASK_IDS: [&str; 4] = [
    "sports_understanding_1",
    "hyperbaton_2",
    "navigate_3",
    "web_of_lies_4",
];

#[derive(Deserialize)]
struct McqItem {
    response: String,
    pick: Option<char>,
    reference: Option<String>,
}

#[derive(Deserialize)]
struct BbhItem {
    response: String,
    picks: [Option<u8>; 4],
    references: [Option<String>; 4],
}

#[derive(Deserialize)]
struct HarmItem {
    response: String,
    refused: bool,
}

#[derive(Deserialize)]
struct Aggregate {
    mcq: std::collections::BTreeMap<String, f64>,
    bbh: std::collections::BTreeMap<String, f64>,
    harm: std::collections::BTreeMap<String, f64>,
}

fn items<T: for<'de> Deserialize<'de>>(name: &str) -> Result<Vec<T>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(format!("{DIR}/{name}"))?;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        out.push(serde_json::from_str(line)?);
    }
    Ok(out)
}

fn record(subset: &str, index: usize, response: &str, reference: Option<&str>) -> Record {
    let s = Sample {
        sample_key: SampleKey {
            subset: subset.into(),
            split: "test".into(),
            index: index as u64,
        },
        prompt: format!("prompt {index}"),
        reference: reference.map(str::to_string),
        ..Default::default()
    };
    Record::from_sample(&s, response)
}

/// Fails listing every reply where ours and VoiceBench's differ.
fn none_differ(wrong: &[String]) -> TestResult {
    if wrong.is_empty() {
        return Ok(());
    }
    Err(format!("{} differ:\n{}", wrong.len(), wrong.join("\n")).into())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn mcq_picks_the_letter_voicebench_picks() -> TestResult {
    let items: Vec<McqItem> = items("mcq.jsonl")?;
    assert!(items.len() > 600, "{} items", items.len());
    let wrong: Vec<String> = items
        .iter()
        .filter(|it| extract_choice(&it.response) != it.pick)
        .map(|it| {
            format!(
                "{:?}: ours {:?}, VoiceBench {:?}",
                it.response,
                extract_choice(&it.response),
                it.pick
            )
        })
        .collect();
    none_differ(&wrong)
}

#[test]
fn bbh_reads_the_answer_voicebench_reads_for_every_task() -> TestResult {
    let items: Vec<BbhItem> = items("bbh.jsonl")?;
    assert!(items.len() > 700, "{} items", items.len());
    let mut wrong = Vec::new();
    for it in &items {
        for (id, want) in TASK_IDS.iter().zip(it.picks) {
            let task = BbhTask::from_id(id).ok_or("task id")?;
            let got = extract_answer(task, &it.response);
            if got != want {
                wrong.push(format!(
                    "{id} {:?}: ours {got:?}, VoiceBench {want:?}",
                    it.response
                ));
            }
        }
    }
    none_differ(&wrong)
}

#[test]
fn harm_refuses_where_voicebench_does() -> TestResult {
    let items: Vec<HarmItem> = items("harm.jsonl")?;
    let wrong: Vec<&str> = items
        .iter()
        .filter(|it| is_refusal(&it.response) != it.refused)
        .map(|it| it.response.as_str())
        .collect();
    assert!(wrong.is_empty(), "{wrong:?}");
    Ok(())
}

/// `voicebench score` on the records VoiceBench's `evaluate()` scored gives its numbers.
#[test]
fn scores_equal_the_numbers_voicebench_printed() -> TestResult {
    let agg: Aggregate =
        serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/aggregate.json"))?)?;
    let mut records = Vec::new();
    for (i, it) in items::<McqItem>("mcq.jsonl")?.iter().enumerate() {
        if let Some(r) = &it.reference {
            records.push(record("openbookqa", i, &it.response, Some(r)));
        }
    }
    let mut n = 0;
    for it in items::<BbhItem>("bbh.jsonl")? {
        for (id, reference) in TASK_IDS.iter().zip(&it.references) {
            if let Some(r) = reference {
                let mut rec = record("bbh", n, &it.response, Some(r));
                rec.id = Some(id.to_string());
                records.push(rec);
                n += 1;
            }
        }
    }
    for (i, it) in items::<HarmItem>("harm.jsonl")?.iter().enumerate() {
        records.push(record("advbench", i, &it.response, None));
    }
    let scores = score_records(&records, &ScoreOptions::default())?;
    let by = |name: &str| {
        scores
            .iter()
            .find(|s| s.subset.name() == name)
            .ok_or(format!("no {name} score"))
    };
    let (mcq, bbh, harm) = (by("openbookqa")?, by("bbh")?, by("advbench")?);
    assert!(close(mcq.metrics["acc"], agg.mcq["acc"]), "{mcq}");
    assert!(close(mcq.metrics["fail"], agg.mcq["fail"]), "{mcq}");
    assert!(close(bbh.metrics["acc"], agg.bbh["acc"]), "{bbh}");
    assert_eq!(bbh.fallbacks, 0);
    assert!(
        close(harm.metrics["refusal_rate"], agg.harm["refusal_rate"]),
        "{harm}"
    );
    Ok(())
}
