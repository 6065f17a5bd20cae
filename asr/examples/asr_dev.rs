//! Accuracy experiments: transcribes the test clips and prints text, timings and WER.
//! Usage: `asr_dev [MODEL_ID] [q8|f16|f32] [MIN_INPUT_MS] [TAIL_PAD_MS] [THREADS]`; set
//! `VW=<silence log-mel>` to use the virtual 30 s window (the default of `RecognizerConfig`).
#[path = "../tests/common/mod.rs"]
mod common;
use pocket_asr::{Recognizer, RecognizerConfig, WeightFormat};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let id = args.get(1).map_or("whisper-tiny.en", |s| s.as_str());
    let fmt = match args.get(2).map(|s| s.as_str()) {
        Some("f16") => WeightFormat::F16,
        Some("f32") => WeightFormat::F32,
        _ => WeightFormat::Q8_0,
    };
    let min_ms: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
    let tail_ms: u32 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(0);
    let threads: usize = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(2);
    let virtual_window = std::env::var("VW").is_ok();
    let silence_floor: f32 = std::env::var("VW")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(-0.5);
    let cfg = RecognizerConfig {
        virtual_window,
        silence_floor,
        weight_format: fmt,
        min_input_ms: min_ms,
        tail_pad_ms: tail_ms,
        threads,
        ..Default::default()
    };
    let t = std::time::Instant::now();
    let rec = Recognizer::load(&common::model_dir(id), cfg)?;
    println!(
        "load {:?}, weights {} MB",
        t.elapsed(),
        rec.weight_bytes() / 1_000_000
    );
    let mut clips = common::librivox();
    clips.push(("jfk".into(), common::jfk(), common::JFK_TEXT.into()));
    let (mut e, mut n) = (0, 0);
    for (id, s, reference) in &clips {
        let tr = rec.transcribe(s)?;
        let (r, h) = (common::normalize(reference), common::normalize(&tr.text));
        e += common::edits(&r, &h);
        n += r.len();
        println!(
            "{id}: {:.0} ms (mel {:.1} enc {:.1} dec {:.1}, {} passes) nsp {:.3} lp {:.2} | {}",
            tr.timings.total_ms,
            tr.timings.mel_ms,
            tr.timings.encoder_ms,
            tr.timings.decoder_ms,
            tr.timings.decoder_passes,
            tr.no_speech_prob,
            tr.avg_logprob,
            tr.text
        );
    }
    println!("WER {:.2}% ({e}/{n})", 100.0 * e as f64 / n as f64);
    Ok(())
}
