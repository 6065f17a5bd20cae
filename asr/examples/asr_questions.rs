//! The engine's side of the recognizer study (docs/PERFORMANCE.md, "Where the spoken answers
//! are lost"): transcribes the spoken question clips of `bench/speak-questions.sh CLIPS` and
//! writes `RESULTS/NAME.tsv` in `bench/asr_questions_fw.py`'s format (voice, clip index,
//! question, transcript) for `bench/asr_questions_score.py`; prints the decoder time per clip.
//!
//! Usage: `asr_questions NAME MODEL_DIR CLIPS RESULTS [BEAM] [THREADS]` (BEAM 1 = greedy).
#[path = "../tests/common/mod.rs"]
mod common;

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use pocket_asr::{Recognizer, RecognizerConfig};

const VOICES: [&str; 3] = ["flite-slt", "flite-rms", "espeak-en-us+f3"];

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, name, model, clips, results, ..] = &args[..] else {
        bail!("usage: asr_questions NAME MODEL_DIR CLIPS RESULTS [BEAM] [THREADS]");
    };
    let beam_size: usize = args.get(5).map_or(Ok(5), |s| s.parse())?;
    let threads: usize = args.get(6).map_or(Ok(2), |s| s.parse())?;
    let rec = Recognizer::load(
        Path::new(model),
        RecognizerConfig {
            beam_size,
            threads,
            ..Default::default()
        },
    )?;
    std::fs::create_dir_all(results)?;
    let out_path = Path::new(results).join(format!("{name}.tsv"));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&out_path)?);
    writeln!(out, "voice\tidx\tquestion\ttranscript")?;
    let mut decoder_ms = Vec::new();
    for voice in VOICES {
        let list = Path::new(clips).join(voice).join("list.tsv");
        let text = std::fs::read_to_string(&list).with_context(|| list.display().to_string())?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut f = line.split('\t');
            let (Some(wav), Some(question)) = (f.next(), f.next()) else {
                bail!(
                    "{}: not WAV<TAB>QUESTION<TAB>KEYWORDS: {line:?}",
                    list.display()
                );
            };
            let (samples, rate, channels) = common::read_wav(Path::new(wav));
            if rate != 16_000 || channels != 1 {
                bail!("{wav}: {rate} Hz x {channels}; 16 kHz mono expected");
            }
            let t = rec.transcribe(&samples)?;
            decoder_ms.push(t.timings.decoder_ms);
            let idx = Path::new(wav)
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            writeln!(out, "{voice}\t{idx}\t{question}\t{}", t.text)?;
        }
    }
    out.flush()?;
    decoder_ms.sort_by(f64::total_cmp);
    let at = |q: f64| decoder_ms[((decoder_ms.len() - 1) as f64 * q).round() as usize];
    eprintln!(
        "{name}: beam {beam_size}, {} clips, decoder ms P50 {:.1} P90 {:.1}",
        decoder_ms.len(),
        at(0.5),
        at(0.9)
    );
    println!("{}", out_path.display());
    Ok(())
}
