//! The recognizer's early final as the loop takes it, with and without the words model's
//! choice among the beam's hearings (`pocket_asr::hearing`), for each clip of a list: the
//! clip up to its true end of speech in 20 ms pieces (a greedy partial every 500 ms, as the
//! loop asks for them), 60 ms of quiet, then the final decoded at that pause. Prints the
//! transcripts that differ and how many of each side are the question word for word
//! (lower case, punctuation dropped). Usage: `hearing_choice LIST.tsv [OUT]` (rows: WAV,
//! question, keywords); with OUT, writes `OUT.best.tsv` and `OUT.chosen.tsv` (transcript,
//! keywords: questions for `pocket ask` and `bench/accuracy.py ask`).

use std::path::Path;

use pocket_asr::{Recognizer, RecognizerConfig};
use pocket_pipeline::audio::wav::read_mono;
use pocket_pipeline::engines::asr::{HEARING_SYSTEM_PROMPT, HEARING_THREADS, LlmHearingScorer};

fn words(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == ' ' {
                c
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() -> anyhow::Result<()> {
    let list = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: hearing_choice LIST.tsv"))?;
    let store = pocket_assets::Store::open_default()?;
    let rec = Recognizer::load(
        &store.require("whisper-tiny.en")?,
        RecognizerConfig::default(),
    )?;
    let gguf = pocket_pipeline::engines::default::model_file(
        &store,
        pocket_pipeline::engines::default::WORDS_JUDGE_MODEL,
    )?;
    let model = pocket_pipeline::engines::llm::load_voice_model(&gguf)?;
    let scorer = pocket_llm::TextScorer::new(model, Some(HEARING_SYSTEM_PROMPT), HEARING_THREADS)?;
    let mut plain = rec.driven_stream();
    let mut chosen = rec.driven_stream();
    chosen.set_hearing_scorer(Box::new(LlmHearingScorer(scorer)));
    let (mut right_plain, mut right_chosen, mut n, mut ms) = (0, 0, 0, Vec::new());
    let mut typed = [String::new(), String::new()];
    for line in std::fs::read_to_string(&list)?.lines() {
        let mut f = line.split('\t');
        let (Some(wav), Some(question), keywords) = (f.next(), f.next(), f.next()) else {
            anyhow::bail!("{list}: not WAV<TAB>QUESTION: {line:?}");
        };
        let samples = read_mono(Path::new(wav), 16_000)?;
        let peak = samples.iter().fold(0f32, |m, x| m.max(x.abs()));
        let end = samples
            .iter()
            .rposition(|x| x.abs() >= peak * 0.01)
            .map_or(samples.len(), |e| e + 1);
        let mut texts = Vec::new();
        for s in [&mut plain, &mut chosen] {
            s.reset();
            for (i, piece) in samples[..end].chunks(320).enumerate() {
                s.accept(piece);
                if (i + 1) % 25 == 0 {
                    s.partial_now();
                }
            }
            s.accept(&[0.0; 960]);
            let text = s
                .speculate_now()
                .map(|(_, t)| t.to_string())
                .unwrap_or_default();
            let t = s.finish()?;
            if t.timings.hearing_ms > 0.0 {
                ms.push(t.timings.hearing_ms);
            }
            texts.push(text);
        }
        for (out, text) in typed.iter_mut().zip(&texts) {
            let text = if text.is_empty() {
                "(nothing heard)"
            } else {
                text
            };
            out.push_str(&format!("{text}\t{}\n", keywords.unwrap_or_default()));
        }
        let q = words(question);
        right_plain += usize::from(words(&texts[0]) == q);
        right_chosen += usize::from(words(&texts[1]) == q);
        n += 1;
        if texts[0] != texts[1] {
            println!("{:?} -> {:?} [{question}]", texts[0], texts[1]);
        }
    }
    if let Some(out) = std::env::args().nth(2) {
        std::fs::write(format!("{out}.best.tsv"), &typed[0])?;
        std::fs::write(format!("{out}.chosen.tsv"), &typed[1])?;
    }
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms.get(((ms.len().max(1) - 1) as f64 * q) as usize).copied();
    println!(
        "{n} clips, word for word: best hearing {right_plain}, chosen {right_chosen}; \
         the choice ran on {} finals, ms P50 {:?} P90 {:?}",
        ms.len(),
        at(0.5),
        at(0.9)
    );
    Ok(())
}
