//! Writing samples in VoiceBench's parquet schema and reading them back gives the same samples.

use std::collections::BTreeMap;

use pocket_voicebench::{
    AudioClip, InstructionKwargs, Sample, SampleKey, encode_wav_16bit, load_split, write_parquet,
};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn key(subset: &str, split: &str, index: u64) -> SampleKey {
    SampleKey {
        subset: subset.into(),
        split: split.into(),
        index,
    }
}

#[test]
fn ifeval_rows_with_audio_and_kwargs_round_trip() -> TestResult {
    let dir = tempfile::tempdir()?;
    let tone: Vec<f32> = (0..800).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
    let wav = encode_wav_16bit(&tone, 16_000)?;
    let samples = vec![
        Sample {
            sample_key: key("ifeval", "test", 0),
            prompt: "Write two sentences without commas.".into(),
            key: Some(1001),
            instruction_id_list: Some(vec![
                "punctuation:no_comma".into(),
                "length_constraints:number_sentences".into(),
            ]),
            kwargs: Some(vec![
                InstructionKwargs::default(),
                InstructionKwargs {
                    num_sentences: Some(2),
                    relation: Some("at least".into()),
                    ..Default::default()
                },
            ]),
            audio: Some(AudioClip {
                bytes: wav.clone(),
                path: Some("0.wav".into()),
            }),
            ..Default::default()
        },
        Sample {
            sample_key: key("ifeval", "test", 1),
            prompt: "Mention apples.".into(),
            key: Some(1002),
            instruction_id_list: Some(vec!["keywords:existence".into()]),
            kwargs: Some(vec![InstructionKwargs {
                keywords: Some(vec!["apple".into(), "pear".into()]),
                ..Default::default()
            }]),
            audio: None,
            ..Default::default()
        },
    ];
    std::fs::create_dir_all(dir.path().join("ifeval"))?;
    write_parquet(
        &dir.path().join("ifeval/test-00000-of-00001.parquet"),
        &samples,
    )?;

    let back = load_split(dir.path(), "ifeval", "test")?;
    assert_eq!(back, samples);
    let audio = back[0].decode_audio()?.ok_or("audio lost")?;
    assert_eq!(audio.sample_rate, 16_000);
    assert_eq!(audio.samples.len(), tone.len());
    Ok(())
}

#[test]
fn reference_id_and_extra_columns_round_trip_in_flat_layout() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut extra = BTreeMap::new();
    extra.insert("category".to_string(), serde_json::Value::from("law"));
    let samples = vec![Sample {
        sample_key: key("bbh", "test", 0),
        prompt: "Is the sentence plausible?".into(),
        reference: Some("yes".into()),
        id: Some("sports_understanding_3".into()),
        extra,
        ..Default::default()
    }];
    write_parquet(&dir.path().join("bbh-test.parquet"), &samples)?;
    assert_eq!(load_split(dir.path(), "bbh", "test")?, samples);
    Ok(())
}

#[test]
fn jsonl_folder_reads_prompt_audio_and_reference() -> TestResult {
    let dir = tempfile::tempdir()?;
    let wav = encode_wav_16bit(&[0.0, 0.5, -0.5], 8_000)?;
    std::fs::write(dir.path().join("a.wav"), &wav)?;
    std::fs::write(
        dir.path().join("samples.jsonl"),
        "{\"prompt\": \"Pick one\", \"audio\": \"a.wav\", \"reference\": \"B\"}\n\n{\"prompt\": \"text only\"}\n",
    )?;
    let samples = load_split(dir.path(), "openbookqa", "test")?;
    assert_eq!(samples.len(), 2);
    assert_eq!(samples[0].reference.as_deref(), Some("B"));
    assert_eq!(samples[1].sample_key.index, 1);
    assert!(samples[1].audio.is_none());
    let audio = samples[0].decode_audio()?.ok_or("audio lost")?;
    assert_eq!((audio.sample_rate, audio.samples.len()), (8_000, 3));
    Ok(())
}

#[test]
fn corrupt_parquet_is_an_error_not_a_panic() -> TestResult {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("advbench-test.parquet"), b"PAR1 not really")?;
    assert!(load_split(dir.path(), "advbench", "test").is_err());
    Ok(())
}
