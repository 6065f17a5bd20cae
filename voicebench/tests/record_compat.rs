//! Output lines carry exactly the keys VoiceBench's `main.py` writes for each subset, plus ours.

use pocket_voicebench::{InstructionKwargs, Record, Sample, SampleKey};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[test]
fn open_ended_lines_have_no_reference_key_and_ifeval_lines_keep_null_kwargs() -> TestResult {
    let open = Sample {
        sample_key: SampleKey {
            subset: "alpacaeval".into(),
            split: "test".into(),
            index: 4,
        },
        prompt: "Tell me a joke".into(),
        ..Default::default()
    };
    let line: serde_json::Value =
        serde_json::from_str(&Record::from_sample(&open, "ha").to_json_line()?)?;
    // VoiceBench's api_judge.py chooses its QA prompt by `"reference" in item`.
    assert!(line.get("reference").is_none());
    assert_eq!(line["prompt"], "Tell me a joke");
    assert_eq!(line["response"], "ha");
    assert_eq!(line["sample"]["index"], 4);

    let ifeval = Sample {
        prompt: "p".into(),
        key: Some(7),
        instruction_id_list: Some(vec!["punctuation:no_comma".into()]),
        kwargs: Some(vec![InstructionKwargs::default()]),
        ..Default::default()
    };
    let mut record = Record::from_sample(&ifeval, "ok");
    record.transcript = Some("p".into());
    record.timings.insert("asr".into(), 12.5);
    let text = record.to_json_line()?;
    let line: serde_json::Value = serde_json::from_str(&text)?;
    assert_eq!(line["key"], 7);
    // Every kwargs field present with null, as `json.dumps` of a datasets row has it.
    assert!(
        line["kwargs"][0]
            .get("num_words")
            .is_some_and(|v| v.is_null())
    );
    assert_eq!(line["timings"]["asr"], 12.5);
    // A judge adding `score` later is kept through a read/write cycle.
    let mut judged: serde_json::Value = line.clone();
    judged["score"] = serde_json::json!(["5", "4", "5"]);
    let back: Record = serde_json::from_value(judged)?;
    assert_eq!(back.extra["score"][0], "5");
    assert_eq!(serde_json::from_str::<Record>(&text)?, record);
    Ok(())
}
