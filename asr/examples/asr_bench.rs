//! Benchmark side of `bench/asr.sh`: per clip, prints tab-separated lines
//! `<engine> <clip> <audio s> <ms> <text>` for
//! - `ours-q8` / `ours-f16`: `Recognizer::transcribe` on the whole clip (median of runs),
//! - `stream-final`: time from the endpoint to the final text (`finish`), clip streamed in
//!   100 ms chunks with 1 s of silence after it; the worst utterance of the clip,
//! - `stream-final-nospec`: the same without decoding during the end-silence wait,
//!
//! then WER lines. Usage: `asr_bench MODEL_DIR THREADS REPEAT CLIP.wav[=REFERENCE] ...`;
//! `BEAM=N` beam-searches finals over N hypotheses (default 1: greedy, as faster-whisper's side
//! of `bench/asr.sh` unless it is given the same `BEAM`).
#[path = "../tests/common/mod.rs"]
mod common;

use pocket_asr::{Recognizer, RecognizerConfig, WeightFormat};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(
        args.len() > 4,
        "usage: asr_bench MODEL_DIR THREADS REPEAT CLIP.wav[=REF] ..."
    );
    let dir = std::path::PathBuf::from(&args[1]);
    let threads: usize = args[2].parse()?;
    let repeat: usize = args[3].parse()?;
    let beam_size: usize = std::env::var("BEAM").map_or(Ok(1), |b| b.parse())?;
    let mut clips = Vec::new();
    for a in &args[4..] {
        let (path, reference) = a.split_once('=').unwrap_or((a, ""));
        let (s, rate, ch) = common::read_wav(std::path::Path::new(path));
        anyhow::ensure!(rate == 16_000 && ch == 1, "{path}: 16 kHz mono expected");
        let id = std::path::Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        clips.push((id, s, reference.to_string()));
    }
    for (name, fmt) in [
        ("ours-q8", WeightFormat::Q8_0),
        ("ours-f16", WeightFormat::F16),
    ] {
        let t = std::time::Instant::now();
        let rec = Recognizer::load(
            &dir,
            RecognizerConfig {
                threads,
                weight_format: fmt,
                beam_size,
                ..Default::default()
            },
        )?;
        eprintln!(
            "{name}: loaded in {:.0} ms, weights {:.1} MB",
            t.elapsed().as_secs_f64() * 1e3,
            rec.weight_bytes() as f64 / 1e6
        );
        rec.transcribe(&clips[0].1)?; // warm-up
        let (mut errs, mut words) = (0, 0);
        for (id, s, reference) in &clips {
            let mut times = Vec::new();
            let mut text = String::new();
            for _ in 0..repeat {
                let tr = rec.transcribe(s)?;
                times.push(tr.timings.total_ms);
                text = tr.text;
            }
            times.sort_by(f64::total_cmp);
            if !reference.is_empty() {
                let r = common::normalize(reference);
                errs += common::edits(&r, &common::normalize(&text));
                words += r.len();
            }
            println!(
                "{name}\t{id}\t{:.2}\t{:.1}\t{text}",
                s.len() as f64 / 16_000.0,
                times[times.len() / 2]
            );
        }
        if words > 0 {
            println!(
                "{name}\tWER\t{:.2}\t{errs}/{words}",
                100.0 * errs as f64 / words as f64
            );
        }
    }
    for (name, spec) in [("stream-final", true), ("stream-final-nospec", false)] {
        let rec = Recognizer::load(
            &dir,
            RecognizerConfig {
                threads,
                speculative_final: spec,
                beam_size,
                ..Default::default()
            },
        )?;
        for (id, s, _) in &clips {
            let mut audio = s.clone();
            audio.extend(common::noise(16_000, 0.001, 5));
            let mut stream = rec.stream();
            let (mut worst, mut texts) = (0f64, Vec::new());
            for c in audio.chunks(1600) {
                stream.accept(c);
                if stream.is_endpoint() {
                    let t = stream.finish()?;
                    worst = worst.max(t.timings.total_ms);
                    texts.push(t.text);
                    stream.reset();
                }
            }
            if stream.in_speech() {
                let t = stream.finish()?;
                worst = worst.max(t.timings.total_ms);
                texts.push(t.text);
            }
            println!(
                "{name}\t{id}\t{:.2}\t{worst:.1}\t{}",
                s.len() as f64 / 16_000.0,
                texts.join(" ")
            );
        }
    }
    Ok(())
}
