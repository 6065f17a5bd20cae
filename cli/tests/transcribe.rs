//! `pocket transcribe` over several files with one model load: every file gets its own
//! utterances and summary, in order; a file that cannot be read is an error for that file
//! only (the others are still transcribed, and the exit status says one failed); the voice
//! loop's earlier text (`--earlier-text`) leaves a read sentence as it was. Needs tiny.en and
//! jfk.wav; skips without them, except in CI (CI=true), where that is a failure.

mod common;

use std::process::Command;

use pocket_assets::{Store, ids};

const POCKET: &str = env!("CARGO_BIN_EXE_pocket");

/// jfk.wav's path, when the test's real parts are installed.
fn jfk(store: &Store) -> Option<String> {
    let mut missing = Vec::new();
    if store.require(ids::WHISPER_TINY_EN).is_err() {
        missing.push("asset whisper-tiny.en (pocket assets fetch)".to_string());
    }
    let clip = store.require_file(ids::JFK, "jfk.wav");
    if clip.is_err() {
        missing.push("asset jfk (pocket assets fetch --set test-audio)".into());
    }
    if !common::proceed_or_skip(&missing) {
        return None;
    }
    clip.ok()
        .map(|p| p.to_str().expect("a UTF-8 asset path").to_string())
}

/// (utterance texts per file, summaries' file names) of `--json` output.
fn parse(stdout: &str) -> (Vec<String>, Vec<String>) {
    let (mut texts, mut files, mut cur) = (Vec::new(), Vec::new(), Vec::new());
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        if let Some(t) = v["text"].as_str() {
            cur.push(t.to_string());
        } else {
            files.push(
                v["file"]
                    .as_str()
                    .expect("a summary names its file")
                    .to_string(),
            );
            texts.push(cur.join(" "));
            cur.clear();
        }
    }
    (texts, files)
}

#[test]
fn several_files_one_load_and_a_bad_file_loses_only_itself() {
    let store = Store::open_default().expect("the asset folder is known");
    let Some(clip) = jfk(&store) else { return };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let bad = dir.path().join("not-a-wav.wav");
    std::fs::write(&bad, b"RIFF this is not audio").expect("write");
    let bad = bad.to_str().expect("UTF-8").to_string();
    let out = Command::new(POCKET)
        .args(["transcribe", "--json", "--whole", &clip, &bad, &clip])
        .output()
        .expect("pocket runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a failed file must fail the run");
    assert!(
        stderr.contains("not-a-wav.wav") && stderr.contains("1 of 3 files"),
        "the bad file is named: {stderr}"
    );
    let (texts, files) = parse(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        files,
        [clip.clone(), clip.clone()],
        "both good files, in order"
    );
    for t in &texts {
        let t = t.to_lowercase();
        assert!(
            t.contains("ask not what your country can do for you"),
            "jfk heard: {t}"
        );
    }
}

#[test]
fn the_loops_earlier_text_leaves_a_read_sentence_as_it_was() {
    let store = Store::open_default().expect("the asset folder is known");
    let Some(clip) = jfk(&store) else { return };
    let run = |earlier: &str| {
        let out = Command::new(POCKET)
            .args([
                "transcribe",
                "--json",
                "--whole",
                "--earlier-text",
                earlier,
                &clip,
            ])
            .output()
            .expect("pocket runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        parse(&String::from_utf8_lossy(&out.stdout)).0.join(" ")
    };
    let plain = run("");
    let after = run(pocket_asr::context::QUESTION_TEXT);
    println!("plain: {plain}\nafter the question text: {after}");
    assert_eq!(after, plain, "the earlier text changed a read sentence");
    assert!(
        !after.contains('?'),
        "a statement was written as a question: {after}"
    );
}
