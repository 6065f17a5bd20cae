//! VAD accuracy check (the Rust side of `bench/asr_vad.py`): builds test signals from the clean
//! clips (1 s of silence before and after, optionally white noise at a given SNR), labels each
//! 16 ms frame speech/non-speech from the clean signal's energy, and scores the earshot VAD.
//! Writes `<out>/<name>.f32` (signal), `<name>.lab` (labels) and `<name>.earshot` (probs) so the
//! Python side can score Silero v6 on the very same frames.
//!
//! Usage: `vad_eval OUT_DIR CLIP.wav ...`
#[path = "../tests/common/mod.rs"]
mod common;

use pocket_asr::Vad;
use pocket_asr::vad::FRAME;

/// Energy labels: a frame is speech when its RMS is within 35 dB of the clip's loudest frame;
/// gaps shorter than 64 ms inside speech are filled.
fn labels(clean: &[f32]) -> Vec<bool> {
    let db: Vec<f32> = clean
        .chunks_exact(FRAME)
        .map(|f| 10.0 * (f.iter().map(|v| v * v).sum::<f32>() / FRAME as f32 + 1e-12).log10())
        .collect();
    let max = db.iter().fold(f32::MIN, |a, &b| a.max(b));
    let mut lab: Vec<bool> = db.iter().map(|&d| d > max - 35.0).collect();
    let mut last: Option<usize> = None;
    for i in 0..lab.len() {
        if lab[i] {
            if let Some(l) = last
                && i - l <= 4
            {
                lab[l..i].iter_mut().for_each(|v| *v = true);
            }
            last = Some(i);
        }
    }
    lab
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let out = std::path::PathBuf::from(&args[1]);
    std::fs::create_dir_all(&out)?;
    // [vad][condition] confusion counts; vad 0 = earshot, 1 = our Silero (SILERO=weights).
    let silero = std::env::var("SILERO").ok().map(std::path::PathBuf::from);
    let (mut tp, mut fp, mut tn, mut fneg) = (
        [[0usize; 3]; 2],
        [[0usize; 3]; 2],
        [[0usize; 3]; 2],
        [[0usize; 3]; 2],
    );
    for path in &args[2..] {
        let (s, rate, ch) = common::read_wav(std::path::Path::new(path));
        anyhow::ensure!(rate == 16_000 && ch == 1, "{path}: 16 kHz mono expected");
        let stem = std::path::Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let mut clean = vec![0f32; 16_000];
        clean.extend(&s);
        clean.extend(vec![0f32; 16_000]);
        clean.truncate(clean.len() / FRAME * FRAME);
        let lab = labels(&clean);
        let power = s.iter().map(|v| v * v).sum::<f32>() / s.len() as f32;
        for (ci, snr) in [None, Some(20.0f32), Some(5.0)].into_iter().enumerate() {
            let mut sig = clean.clone();
            let name = match snr {
                None => format!("{stem}-clean"),
                Some(db) => {
                    let amp = (power / 10f32.powf(db / 10.0) * 3.0).sqrt(); // uniform noise: var = a^2/3
                    for (v, n) in sig.iter_mut().zip(common::noise(clean.len(), amp, 11)) {
                        *v += n;
                    }
                    format!("{stem}-snr{db}")
                }
            };
            let mut probs = Vec::new();
            for (vi, vad) in [
                Some(Vad::new()),
                silero
                    .as_ref()
                    .map(|p| Vad::silero(p).expect("silero weights")),
            ]
            .into_iter()
            .enumerate()
            {
                let Some(mut vad) = vad else { continue };
                let mut pr = Vec::new();
                vad.accept(&sig, |_, p| pr.push(p));
                for (p, &l) in pr.iter().zip(&lab) {
                    match (*p >= 0.5, l) {
                        (true, true) => tp[vi][ci] += 1,
                        (true, false) => fp[vi][ci] += 1,
                        (false, false) => tn[vi][ci] += 1,
                        (false, true) => fneg[vi][ci] += 1,
                    }
                }
                if vi == 0 {
                    probs = pr;
                }
            }
            let bytes: Vec<u8> = sig.iter().flat_map(|v| v.to_le_bytes()).collect();
            std::fs::write(out.join(format!("{name}.f32")), bytes)?;
            std::fs::write(
                out.join(format!("{name}.lab")),
                lab.iter()
                    .map(|&b| if b { b'1' } else { b'0' })
                    .collect::<Vec<u8>>(),
            )?;
            std::fs::write(
                out.join(format!("{name}.earshot")),
                probs
                    .iter()
                    .map(|p| format!("{p:.4}\n"))
                    .collect::<String>(),
            )?;
        }
    }
    for (vi, name) in ["earshot", "silero-ours"].iter().enumerate() {
        for (ci, cond) in ["clean", "snr20", "snr5"].iter().enumerate() {
            let (tp, fp, tn, fneg) = (tp[vi][ci], fp[vi][ci], tn[vi][ci], fneg[vi][ci]);
            let all = tp + fp + tn + fneg;
            if all == 0 {
                continue;
            }
            println!(
                "{name}\t{cond}\taccuracy {:.1}%\tspeech recall {:.1}%\tfalse alarms {:.1}% of non-speech",
                100.0 * (tp + tn) as f64 / all as f64,
                100.0 * tp as f64 / (tp + fneg).max(1) as f64,
                100.0 * fp as f64 / (fp + tn).max(1) as f64
            );
        }
    }
    Ok(())
}
