//! The engine's side of the recognizer study (docs/PERFORMANCE-HISTORY.md, "Where the spoken
//! answers are lost"): transcribes the spoken question clips of `bench/speak-questions.sh
//! CLIPS` and writes `RESULTS/NAME.tsv` in `bench/asr_questions_fw.py`'s format (voice, clip
//! index, question, transcript, plus the decoder's confidence: least token probability and
//! average log-probability) for `bench/asr_questions_score.py`; prints the decoder time per
//! clip.
//!
//! Usage: `asr_questions NAME MODEL_DIR CLIPS RESULTS [BEAM] [THREADS] [BEAM_BELOW_P]` (BEAM 1 =
//! greedy; BEAM_BELOW_P, default 1.0: beam search only when greedy's least likely token is
//! below it).
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
        bail!("usage: asr_questions NAME MODEL_DIR CLIPS RESULTS [BEAM] [THREADS] [BEAM_BELOW_P]");
    };
    let beam_size: usize = args.get(5).map_or(Ok(5), |s| s.parse())?;
    let threads: usize = args.get(6).map_or(Ok(2), |s| s.parse())?;
    let beam_below_p: f32 = args.get(7).map_or(Ok(1.0), |s| s.parse())?;
    let rec = Recognizer::load(
        Path::new(model),
        RecognizerConfig {
            beam_size,
            beam_below_p,
            threads,
            ..Default::default()
        },
    )?;
    std::fs::create_dir_all(results)?;
    let out_path = Path::new(results).join(format!("{name}.tsv"));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&out_path)?);
    writeln!(out, "voice\tidx\tquestion\ttranscript\tmin_p\tavg_logprob")?;
    // Every hearing of each clip (the best, rank 0, then the beam's others): for rescoring.
    let hear_path = Path::new(results).join(format!("{name}.hearings.tsv"));
    let mut hear = std::io::BufWriter::new(std::fs::File::create(&hear_path)?);
    writeln!(
        hear,
        "voice\tidx\tquestion\trank\ttext\tsum_logprob\ttokens"
    )?;
    let mut decoder_ms = Vec::new();
    let mut searched = 0;
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
            searched += usize::from(t.timings.beam_searched);
            let idx = Path::new(wav)
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            // How sure the decoder was: its least likely token's probability, and Whisper's
            // average log-probability (for choosing when a final needs beam search).
            let min_p = t.token_logprobs.iter().fold(0f32, |a, &b| a.min(b)).exp();
            writeln!(
                out,
                "{voice}\t{idx}\t{question}\t{}\t{min_p:.4}\t{:.4}",
                t.text, t.avg_logprob
            )?;
            let n = t.tokens.len();
            let best_sum = t.avg_logprob * (n + 1) as f32;
            writeln!(
                hear,
                "{voice}\t{idx}\t{question}\t0\t{}\t{best_sum:.4}\t{n}",
                t.text
            )?;
            for (rank, o) in t.others.iter().enumerate() {
                writeln!(
                    hear,
                    "{voice}\t{idx}\t{question}\t{}\t{}\t{:.4}\t{}",
                    rank + 1,
                    o.text,
                    o.sum_logprob,
                    o.tokens.len()
                )?;
            }
        }
    }
    out.flush()?;
    hear.flush()?;
    decoder_ms.sort_by(f64::total_cmp);
    let at = |q: f64| decoder_ms[((decoder_ms.len() - 1) as f64 * q).round() as usize];
    eprintln!(
        "{name}: beam {beam_size} below p {beam_below_p}, {} clips ({searched} beam-searched), \
         decoder ms P50 {:.1} P90 {:.1}",
        decoder_ms.len(),
        at(0.5),
        at(0.9)
    );
    println!("{}", out_path.display());
    Ok(())
}
