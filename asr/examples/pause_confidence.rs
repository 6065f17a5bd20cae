//! How sure the recognizer is of the words it decodes at a pause: for each clip of a
//! `bench/turn-taking.sh` voice folder (its `list.tsv`: path, pause ms, sentence), decodes the
//! audio up to the inserted pause (a fragment: "What time does the sun") and up to the end of
//! speech (the whole sentence), each followed by `PAUSE_MS` of silence as at the loop's pause
//! decode, and prints the text, the last word's probability and each token's.
//! Usage: `pause_confidence [MODEL_ID] LIST.tsv...`

#[path = "../tests/common/mod.rs"]
mod common;
use pocket_asr::Recognizer;
use pocket_asr::vocab::Vocab;

/// Silence after the words: 100 ms, the ears' pause when the last-word threshold was set (the
/// loop's is now `EndpointConfig::early_final_after`, 60 ms). `PAUSE_MS` changes it.
const PAUSE_MS: usize = 100;

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let id = if args.first().is_some_and(|a| !a.ends_with(".tsv")) {
        args.remove(0)
    } else {
        "whisper-tiny.en".to_string()
    };
    let dir = common::model_dir(&id);
    let rec = Recognizer::load(&dir, Default::default())?;
    let vocab = Vocab::load(&dir.join("vocabulary.txt"))?;
    let pause_ms = std::env::var("PAUSE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(PAUSE_MS);
    for list in &args {
        for line in std::fs::read_to_string(list)?.lines() {
            let mut f = line.split('\t');
            let (Some(path), Some(pause), Some(sentence)) = (f.next(), f.next(), f.next()) else {
                continue;
            };
            let (s, rate, _) = common::read_wav(std::path::Path::new(path));
            anyhow::ensure!(rate == 16_000, "{path}: {rate} Hz");
            let voiced: Vec<usize> = (0..s.len()).filter(|&i| s[i] != 0.0).collect();
            let (Some(&first), Some(&last)) = (voiced.first(), voiced.last()) else {
                continue;
            };
            let mut cuts = vec![("whole", last + 1)];
            if pause.parse::<u32>().unwrap_or(0) > 0 {
                // The inserted pause: the longest run of exact zeros inside the speech.
                let (mut best, mut run_start, mut best_len) = (0, first, 0);
                for (i, &v) in s.iter().enumerate().take(last + 1).skip(first) {
                    if v != 0.0 {
                        run_start = i + 1;
                    } else if i + 1 - run_start > best_len {
                        best_len = i + 1 - run_start;
                        best = run_start;
                    }
                }
                cuts.insert(0, ("fragment", best));
            }
            for (kind, end) in cuts {
                let start = first.saturating_sub(4800);
                let mut audio = s[start..end].to_vec();
                audio.extend(std::iter::repeat_n(0.0, pause_ms * 16));
                let t = rec.transcribe(&audio)?;
                let probs: Vec<String> = t
                    .tokens
                    .iter()
                    .map(|&tok| vocab.decode(&[tok]))
                    .zip(&t.token_logprobs)
                    .map(|(w, lp)| format!("{w}={:.2}", lp.exp()))
                    .collect();
                println!(
                    "{kind}\t{sentence}\t{}\t{:.2}\t{}",
                    t.text,
                    t.last_word_prob,
                    probs.join(" ")
                );
            }
        }
    }
    Ok(())
}
