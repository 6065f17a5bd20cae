//! Intelligibility round trip: the joe voice speaks 24 varied sentences (numbers, names,
//! questions), the project's own Whisper recognizer transcribes them, and the word error rate
//! over all of them must be at most 10%.

mod common;

use common::joe;
use pocket_asr::{Recognizer, RecognizerConfig};
use pocket_tts::{Voice, normalize, resample, speak_to_vec};

/// Words for scoring: both sides go through the speech normalizer ("$25" and "twenty-five
/// dollars" agree), then lower case without punctuation.
fn words(text: &str) -> Vec<String> {
    normalize(text)
        .to_lowercase()
        .replace('-', " ")
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_string()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Word-level Levenshtein distance.
fn edits(reference: &[String], hypothesis: &[String]) -> usize {
    pocket_stats::edit_distance(reference, hypothesis)
}

#[test]
fn edit_distance_counts_words() {
    let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
    assert_eq!(edits(&w("a b c"), &w("a b c")), 0);
    assert_eq!(edits(&w("a b c"), &w("a x c d")), 2);
    assert_eq!(
        words("It costs $25!"),
        vec!["it", "costs", "twenty", "five", "dollars"]
    );
}

#[test]
fn whisper_understands_the_joe_voice() {
    let store = pocket_assets::Store::open_default().expect("store");
    let model = store
        .require(pocket_assets::ids::WHISPER_TINY_EN)
        .expect("run `pocket assets fetch` first");
    let rec = Recognizer::load(&model, RecognizerConfig::default()).expect("load whisper");
    let sentences = include_str!("data/roundtrip.txt");
    let mut voice = joe();
    let rate = voice.sample_rate();
    let (mut total_words, mut total_edits) = (0, 0);
    let (mut t_tts, mut t_asr) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    for line in sentences.lines().filter(|l| !l.trim().is_empty()) {
        let t = std::time::Instant::now();
        let (pcm, _) = speak_to_vec(&mut *voice, line).expect("synthesize");
        let pcm16 = resample(&pcm, rate, 16_000).expect("resample");
        t_tts += t.elapsed();
        let t = std::time::Instant::now();
        let heard = rec.transcribe(&pcm16).expect("transcribe").text;
        t_asr += t.elapsed();
        let (r, h) = (words(line), words(&heard));
        let e = edits(&r, &h);
        println!("{e} | {line} | {heard}");
        total_words += r.len();
        total_edits += e;
    }
    let wer = total_edits as f64 / total_words as f64;
    println!(
        "WER {wer:.3} ({total_edits} / {total_words} words); tts+resample {t_tts:?}, asr {t_asr:?}"
    );
    assert!(total_words > 150);
    assert!(wer <= 0.10, "WER {wer:.3}");
}
