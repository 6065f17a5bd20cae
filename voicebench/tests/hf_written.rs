//! Reading parquet written by Hugging Face `datasets` itself (the writer of the published
//! hlt-lab/voicebench files), not by our own writer: HF's per-column options (uncompressed audio,
//! snappy text, page index), its `huggingface` schema metadata, list-of-struct `kwargs` with
//! nulls for absent keys, and a zstd copy. The files are made by `tests/data/hf-written/make.py`.

use std::path::PathBuf;

use pocket_voicebench::{InstructionKwargs, Sample, load_split};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/hf-written")
}

/// (sample rate, samples) of each row's decoded audio.
fn decoded(samples: &[Sample]) -> Result<Vec<(u32, usize)>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for s in samples {
        let audio = s.decode_audio()?.ok_or("a row without audio")?;
        out.push((audio.sample_rate, audio.samples.len()));
    }
    Ok(out)
}

fn check_openbookqa(samples: &[Sample]) -> TestResult {
    let references: Vec<_> = samples.iter().map(|s| s.reference.as_deref()).collect();
    assert_eq!(references, [Some("B"), Some("C"), Some("B")]);
    assert!(samples[0].prompt.starts_with("Which of these is a mammal?"));
    let indices: Vec<_> = samples.iter().map(|s| s.sample_key.index).collect();
    assert_eq!(indices, [0, 1, 2]);
    // 100 ms at 22050 Hz, 50 ms at 48 kHz (WAV), 120 ms at 16 kHz (FLAC).
    assert_eq!(
        decoded(samples)?,
        [(22_050, 2_205), (48_000, 2_400), (16_000, 1_920)]
    );
    assert_eq!(
        samples[0].audio.as_ref().and_then(|a| a.path.as_deref()),
        Some("0.wav")
    );
    assert_eq!(
        samples[1].audio.as_ref().and_then(|a| a.path.as_deref()),
        None
    );
    // The audio is a tone of amplitude 0.25, not garbage.
    let first = samples[0].decode_audio()?.ok_or("no audio")?;
    let peak = first.samples.iter().fold(0f32, |m, s| m.max(s.abs()));
    assert!((peak - 0.25).abs() < 0.01, "peak {peak}");
    Ok(())
}

#[test]
fn openbookqa_as_datasets_writes_it() -> TestResult {
    check_openbookqa(&load_split(&data(), "openbookqa", "test")?)
}

#[test]
fn zstd_compressed_copy_reads_the_same() -> TestResult {
    let zstd = load_split(&data().join("zstd"), "openbookqa", "test")?;
    check_openbookqa(&zstd)?;
    assert_eq!(zstd, load_split(&data(), "openbookqa", "test")?);
    Ok(())
}

#[test]
fn ifeval_kwargs_list_of_structs_with_nulls() -> TestResult {
    let samples = load_split(&data(), "ifeval", "test")?;
    assert_eq!(samples.len(), 2);
    assert_eq!(samples[0].key, Some(1000));
    assert_eq!(
        samples[0].kwargs,
        Some(vec![InstructionKwargs {
            num_paragraphs: Some(3),
            ..Default::default()
        }])
    );
    assert_eq!(
        samples[1].instruction_id_list.as_deref(),
        Some(
            &[
                "change_case:english_lowercase".to_string(),
                "punctuation:no_comma".to_string()
            ][..]
        )
    );
    assert_eq!(
        samples[1].kwargs,
        Some(vec![
            InstructionKwargs::default(),
            InstructionKwargs::default()
        ])
    );
    assert_eq!(decoded(&samples)?, [(16_000, 960), (16_000, 960)]);
    Ok(())
}

#[test]
fn sd_qa_region_split_and_bbh_task_id() -> TestResult {
    let sdqa = load_split(&data(), "sd-qa", "usa")?;
    assert_eq!(sdqa.len(), 1);
    assert_eq!(sdqa[0].reference.as_deref(), Some("Herman Melville"));
    assert_eq!(sdqa[0].sample_key.split, "usa");
    let bbh = load_split(&data(), "bbh", "test")?;
    assert_eq!(bbh[0].id.as_deref(), Some("boolean_expressions"));
    assert_eq!(bbh[0].reference.as_deref(), Some("False"));
    // No column beyond VoiceBench's leaks into `extra` (HF metadata stays metadata).
    assert!(bbh[0].extra.is_empty(), "{:?}", bbh[0].extra);
    Ok(())
}
