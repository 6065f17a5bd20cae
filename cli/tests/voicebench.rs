//! `pocket voicebench` end to end on the spoken fixture set: text runs split in two shards and
//! merged score the same as one run; resume redoes nothing; score writes its reports; one
//! audio run goes through the whole voice loop. Needs the default models and flite/espeak-ng;
//! skips without them, except in CI (CI=true), where that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

const POCKET: &str = env!("CARGO_BIN_EXE_pocket");

/// The subsets the text runs cover (each scored by a different rule).
const SUBSETS: [&str; 4] = ["openbookqa", "bbh", "ifeval", "advbench"];

fn pocket(args: &[&str]) -> Result<String> {
    let out = Command::new(POCKET)
        .args(args)
        .output()
        .with_context(|| format!("running pocket {}", args.join(" ")))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(
        out.status.success(),
        "pocket {} failed: {stderr}",
        args.join(" ")
    );
    Ok(format!("{}{stderr}", String::from_utf8_lossy(&out.stdout)))
}

/// What is missing to run these tests (assets, voices), if anything.
fn missing() -> Vec<String> {
    let mut missing = Vec::new();
    for tool in ["flite", "espeak-ng"] {
        if Command::new(tool).arg("--version").output().is_err() {
            missing.push(format!("{tool} (Debian package {tool})"));
        }
    }
    for id in [
        "smollm2-135m-instruct-q4_1",
        "whisper-tiny.en",
        "piper-en_US-joe-medium",
        "onnxruntime",
    ] {
        let installed = pocket(&["assets", "path", id])
            .ok()
            .map(|p| PathBuf::from(p.trim()))
            .is_some_and(|p| p.read_dir().is_ok_and(|mut d| d.next().is_some()));
        if !installed {
            missing.push(format!("asset {id} (pocket assets fetch)"));
        }
    }
    missing
}

/// `true` to go on; `false` to skip (outside CI only).
fn ready() -> bool {
    common::proceed_or_skip(&missing())
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

fn scores(report_dir: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(report_dir.join("report.json"))?;
    let json: serde_json::Value = serde_json::from_str(&text)?;
    Ok(json["scores"].clone())
}

/// `voicebench run` of `subset` into `out` in `modality` at `pace`.
fn run_args<'a>(
    data: &'a Path,
    subset: &'a str,
    out: &'a Path,
    modality: &'a str,
    pace: &'a str,
) -> Vec<&'a str> {
    vec![
        "voicebench",
        "run",
        "--data",
        s(data),
        "--subset",
        subset,
        "--out",
        s(out),
        "--modality",
        modality,
        "--pace",
        pace,
    ]
}

fn text_run(data: &Path, subset: &str, out: &Path, shard: Option<&str>) -> Result<String> {
    let mut args = run_args(data, subset, out, "text", "fast");
    args.extend(["--threads", "2"]);
    if let Some(sh) = shard {
        args.extend(["--shard", sh]);
    }
    pocket(&args)
}

/// A temporary folder holding the fixture set in `data/`.
fn fixture_set() -> Result<(tempfile::TempDir, PathBuf)> {
    let tmp = tempfile::tempdir()?;
    let data = tmp.path().join("data");
    pocket(&["voicebench", "fixture", "--out", s(&data)])?;
    Ok((tmp, data))
}

#[test]
fn text_shards_merge_to_the_single_run_and_score_with_reports() -> Result<()> {
    if !ready() {
        return Ok(());
    }
    let (tmp, data) = fixture_set()?;

    let single = tmp.path().join("single");
    let shards = tmp.path().join("shards");
    let mut single_files = Vec::new();
    let mut merged_files = Vec::new();
    for subset in SUBSETS {
        text_run(&data, subset, &single, None)?;
        single_files.push(single.join(format!("{subset}-test.jsonl")));
        for sh in ["0/2", "1/2"] {
            text_run(&data, subset, &shards, Some(sh))?;
        }
        let parts: Vec<PathBuf> = (0..2)
            .map(|i| shards.join(format!("{subset}-test.shard-{i}-of-2.jsonl")))
            .collect();
        let merged = shards.join(format!("{subset}-test.jsonl"));
        let mut args = vec!["voicebench", "merge", "--out", s(&merged)];
        args.extend(parts.iter().map(|p| s(p)));
        args.extend(["--data", s(&data), "--subset", subset, "--split", "test"]);
        pocket(&args)?;
        merged_files.push(merged);
    }

    // One shard alone is incomplete, and the error names what is missing.
    let half = shards.join("openbookqa-test.shard-0-of-2.jsonl");
    let lone = tmp.path().join("lone.jsonl");
    let err = pocket(&["voicebench", "merge", "--out", s(&lone), s(&half)]);
    match err {
        Err(e) => ensure!(
            e.to_string().contains("missing: openbookqa/test/1"),
            "unexpected merge error: {e}"
        ),
        Ok(_) => bail!("merging one of two shards should fail"),
    }

    // Resume: a finished output is left alone.
    let before = std::fs::read(&single_files[0])?;
    let log = text_run(&data, SUBSETS[0], &single, None)?;
    ensure!(log.contains("0 to do"), "resume redid work: {log}");
    ensure!(std::fs::read(&single_files[0])? == before);

    let (rep_single, rep_merged) = (tmp.path().join("rep1"), tmp.path().join("rep2"));
    for (files, dir) in [(&single_files, &rep_single), (&merged_files, &rep_merged)] {
        let mut args = vec!["voicebench", "score", "--report-dir", s(dir)];
        args.extend(files.iter().map(|p| s(p)));
        pocket(&args)?;
    }
    let (a, b) = (scores(&rep_single)?, scores(&rep_merged)?);
    ensure!(a == b, "sharded scores differ:\n{a}\nvs\n{b}");
    ensure!(
        a.as_array().is_some_and(|v| v.len() == SUBSETS.len()),
        "{a}"
    );
    for f in [
        "report.json",
        "report.md",
        "scores.svg",
        "latency_cdf.svg",
        "stages.svg",
    ] {
        let path = rep_single.join(f);
        ensure!(path.is_file(), "{} not written", path.display());
    }
    Ok(())
}

#[test]
fn audio_run_goes_through_the_voice_loop() -> Result<()> {
    if !ready() {
        return Ok(());
    }
    let (tmp, data) = fixture_set()?;
    let out = tmp.path().join("out");
    pocket(&[
        "voicebench",
        "run",
        "--data",
        s(&data),
        "--subset",
        "bbh",
        "--out",
        s(&out),
        "--modality",
        "audio",
        "--pace",
        "fast",
        // The loop is under test here, not turn-taking: one turn per prompt.
        "--endpoint",
        "fixed",
        "--limit",
        "2",
        "--save-audio",
    ])?;
    let file = out.join("bbh-test.jsonl");
    let text = std::fs::read_to_string(&file)?;
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    ensure!(lines.len() == 2, "{text}");
    for l in &lines {
        ensure!(l["outcome"] == "answered", "{l}");
        let transcript = l["transcript"].as_str().unwrap_or_default().to_lowercase();
        // Whisper tiny.en mishears some words of these voices ("plausible"), not this one.
        ensure!(transcript.contains("sentence"), "ASR heard: {transcript}");
        ensure!(
            !l["response"].as_str().unwrap_or_default().is_empty(),
            "{l}"
        );
        for t in [
            "first_audio",
            "response",
            "asr",
            "llm_first_token",
            "tts_first_chunk",
        ] {
            ensure!(l["timings"][t].as_f64().is_some(), "no {t} in {l}");
        }
        let wav = out.join(l["audio_path"].as_str().unwrap_or_default());
        ensure!(std::fs::metadata(&wav)?.len() > 10_000, "{}", wav.display());
    }
    let rep = tmp.path().join("rep");
    pocket(&["voicebench", "score", "--report-dir", s(&rep), s(&file)])?;
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rep.join("report.json"))?)?;
    ensure!(report["latency_ms"]["first_audio"]["n"] == 2, "{report}");
    ensure!(report["wer"]["n"] == 2, "{report}");
    Ok(())
}

/// Runs `subset` of the fixture through the voice loop with the default turn-taking and
/// returns its records.
fn audio_records(
    data: &Path,
    subset: &str,
    out: &Path,
    pace: &str,
    limit: Option<&str>,
) -> Result<Vec<serde_json::Value>> {
    let mut args = run_args(data, subset, out, "audio", pace);
    if let Some(n) = limit {
        args.extend(["--limit", n]);
    }
    pocket(&args)?;
    let text = std::fs::read_to_string(out.join(format!("{subset}-test.jsonl")))?;
    Ok(text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?)
}

/// How many option letters a multiple-choice record's prompt has (lines opening "A. ", …),
/// and how many of them its transcript writes as a letter ("B.", "B,", "B").
fn option_letters_heard(r: &serde_json::Value) -> (usize, usize) {
    let prompt = r["prompt"].as_str().unwrap_or_default();
    let transcript = r["transcript"].as_str().unwrap_or_default();
    let words: Vec<&str> = transcript
        .split_whitespace()
        .map(|w| w.trim_end_matches(['.', ',', ':', ';', ')']))
        .collect();
    let options: Vec<&str> = prompt
        .lines()
        .filter_map(|l| l.split_once(". ").map(|(letter, _)| letter))
        .filter(|l| l.len() == 1 && l.chars().all(|c| c.is_ascii_uppercase()))
        .collect();
    let heard = options.iter().filter(|l| words.contains(l)).count();
    (options.len(), heard)
}

/// Every fixture prompt (options 1.5-2 s apart, instructions of several sentences with
/// pauses) is one turn whose transcript is the whole prompt: exactly one record each,
/// answered, `turns` 1, and on the flite voices a word error rate against the prompt of at
/// most 15% (the score report's WER, over those records). A harness that lets a pause end
/// the turn answers the last fragment, and its transcript fails the WER; a recognizer that
/// stops its text at a pause (Whisper does, now and then) leaves a transcript with too few of
/// the prompt's words, whatever the voice.
#[test]
fn every_fixture_prompt_is_one_whole_turn_in_both_paces() -> Result<()> {
    if !ready() {
        return Ok(());
    }
    let (tmp, data) = fixture_set()?;
    let runs = [
        ("openbookqa", "fast", None),
        ("ifeval", "fast", None),
        ("bbh", "fast", None),
        ("openbookqa", "realtime", Some("2")),
    ];
    let mut flite = String::new();
    let (mut letters, mut heard) = (0, 0);
    for (subset, pace, limit) in runs {
        let out = tmp.path().join(format!("{subset}-{pace}"));
        let records = audio_records(&data, subset, &out, pace, limit)?;
        let all = match subset {
            "openbookqa" => 5,
            _ => 4,
        };
        let expected = limit.map_or(all, |_| 2);
        ensure!(records.len() == expected, "{subset} {pace}: {records:?}");
        for r in &records {
            ensure!(r["outcome"] == "answered", "{subset} {pace}: {r}");
            ensure!(r["turns"] == 1, "{subset} {pace}: split into turns: {r}");
            let words = |k: &str| r[k].as_str().unwrap_or_default().split_whitespace().count();
            ensure!(
                words("transcript") * 10 >= words("prompt") * 7,
                "{subset} {pace}: the transcript is a fragment of the prompt: {r}"
            );
            ensure!(
                !r["response"].as_str().unwrap_or_default().is_empty(),
                "{r}"
            );
            if pace == "realtime" {
                ensure!(
                    r["timings"]["first_audio_true_end"].as_f64().is_some(),
                    "{r}"
                );
            }
            if subset == "openbookqa" {
                let (n, h) = option_letters_heard(r);
                (letters, heard) = (letters + n, heard + h);
            }
            if r["voice"].as_str().is_some_and(|v| v.starts_with("flite")) {
                flite.push_str(&r.to_string());
                flite.push('\n');
            }
        }
    }
    // Told that lettered options come (`--listen-for auto` on a multiple-choice subset), the
    // recognizer writes most spoken letters as letters; with the plain prompt it wrote 9 of
    // the 20 of the fast run as words ("Keep the sun", "Be natural gas", "Deep seed").
    ensure!(
        heard * 10 >= letters * 7,
        "{heard} of {letters} option letters written as letters"
    );
    // One figure over every flite record: single letters ("B" heard as "be") cost a few
    // points per option; a fragment transcript misses most of the prompt's words.
    let file = tmp.path().join("flite.jsonl");
    std::fs::write(&file, flite)?;
    let rep = tmp.path().join("rep");
    pocket(&["voicebench", "score", "--report-dir", s(&rep), s(&file)])?;
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rep.join("report.json"))?)?;
    let wer = report["wer"]["wer"].as_f64().unwrap_or(1.0);
    ensure!(
        wer <= 0.15,
        "WER {wer:.3} on the flite voices: {}",
        report["wer"]
    );
    Ok(())
}
