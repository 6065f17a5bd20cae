//! `pocket transcribe FILE.wav...`: speech recognition of WAV files (any rate and channel
//! count) through the streaming recognizer: VAD-cut utterances, each with its text and timing,
//! then the real-time factor of each file's run. The model loads once for all the files.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use pocket_asr::{Recognizer, RecognizerConfig, Transcript, WeightFormat};
use pocket_assets::{Store, ids};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ModelChoice {
    #[value(name = "tiny.en")]
    TinyEn,
    #[value(name = "base")]
    Base,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum WeightChoice {
    Q8,
    F16,
}

#[derive(Args)]
pub struct TranscribeArgs {
    /// WAV files (PCM 8-32 bit or float, any sample rate, any channel count), in turn.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Whisper model.
    #[arg(long, value_enum, default_value = "tiny.en")]
    pub model: ModelChoice,
    /// Print one JSON object per utterance and a summary object.
    #[arg(long)]
    pub json: bool,
    /// Compute threads.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Language code for the multilingual base model (e.g. en, de, fr).
    #[arg(long)]
    pub language: Option<String>,
    /// Weight storage: q8 (Q8_0, requantized at load) or f16 (as stored).
    #[arg(long, value_enum, default_value = "q8")]
    pub weights: WeightChoice,
    /// Decode the whole file at once instead of cutting it into utterances with the VAD.
    #[arg(long)]
    pub whole: bool,
    /// Hypotheses of the beam search for final transcripts (1 = greedy).
    #[arg(long, default_value_t = RecognizerConfig::default().beam_size)]
    pub beam: usize,
    /// Beam-search a final only when greedy decoding heard a token with less than this
    /// probability (1 = always, 0 = never).
    #[arg(long, default_value_t = RecognizerConfig::default().beam_below_p)]
    pub beam_below: f32,
    /// Earlier text Whisper reads before each utterance, as the transcript so far
    /// (`RecognizerConfig::plain_text`; for trying prompts).
    #[arg(long, default_value = "")]
    pub earlier_text: String,
}

#[derive(serde::Serialize)]
struct Utterance<'a> {
    index: usize,
    start_s: f64,
    speech_end_s: Option<f64>,
    forced_end: bool,
    text: &'a str,
    /// Wall time of the final decode after the endpoint.
    final_ms: f64,
    transcript: &'a Transcript,
}

pub fn run(a: TranscribeArgs) -> Result<()> {
    let id = match a.model {
        ModelChoice::TinyEn => ids::WHISPER_TINY_EN,
        ModelChoice::Base => ids::WHISPER_BASE,
    };
    let store = Store::open_default()?;
    let dir = store.require(id)?;
    // Silero is the more accurate VAD in noise; earshot (built in) when it is not installed.
    let vad_model = store
        .require_file(ids::SILERO_VAD, "silero_vad_16k.safetensors")
        .ok();
    let cfg = RecognizerConfig {
        vad_model,
        threads: a.threads,
        beam_size: a.beam,
        beam_below_p: a.beam_below,
        language: a.language.clone(),
        plain_text: a.earlier_text.clone(),
        weight_format: match a.weights {
            WeightChoice::Q8 => WeightFormat::Q8_0,
            WeightChoice::F16 => WeightFormat::F16,
        },
        ..Default::default()
    };
    let t_load = Instant::now();
    let rec = Recognizer::load(&dir, cfg).with_context(|| format!("loading {}", dir.display()))?;
    let load_ms = t_load.elapsed().as_secs_f64() * 1e3;
    // A file that cannot be read is told and skipped; the others are still transcribed.
    let mut failed = 0;
    for file in &a.files {
        if let Err(e) = transcribe_file(&a, &rec, id, file, load_ms) {
            eprintln!("error: {e:#}");
            failed += 1;
        }
    }
    if failed > 0 {
        bail!(
            "{failed} of {} files could not be transcribed",
            a.files.len()
        );
    }
    Ok(())
}

/// One file's utterances and summary.
fn transcribe_file(
    a: &TranscribeArgs,
    rec: &std::sync::Arc<Recognizer>,
    id: &str,
    file: &Path,
    load_ms: f64,
) -> Result<()> {
    let mut reader = hound::WavReader::open(file)
        .with_context(|| format!("{} is not a readable WAV file", file.display()))?;
    let spec = reader.spec();
    if reader.duration() == 0 {
        bail!("{} holds no audio samples", file.display());
    }
    let (rate, channels) = (spec.sample_rate, spec.channels);
    let frames = u64::from(reader.duration());
    let audio_s = frames as f64 / f64::from(rate);
    let scale = match spec.sample_format {
        hound::SampleFormat::Int => 1.0 / (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32,
        hound::SampleFormat::Float => 1.0,
    };
    let mut next_chunk = {
        let chunk = chunk_samples(&spec)?; // 100 ms
        let mut buf = Vec::with_capacity(chunk);
        move |r: &mut hound::WavReader<std::io::BufReader<std::fs::File>>| -> Result<Option<Vec<f32>>> {
            buf.clear();
            match spec.sample_format {
                hound::SampleFormat::Int => {
                    for s in r.samples::<i32>().take(chunk) {
                        buf.push(s.context("reading WAV samples")? as f32 * scale);
                    }
                }
                hound::SampleFormat::Float => {
                    for s in r.samples::<f32>().take(chunk) {
                        buf.push(s.context("reading WAV samples")?);
                    }
                }
            }
            Ok((!buf.is_empty()).then(|| buf.clone()))
        }
    };

    let t_run = Instant::now();
    let mut printed = 0usize;
    let mut report = |t: &Transcript, start: f64, end: Option<f64>, forced: bool, final_ms: f64| {
        if a.json {
            let u = Utterance {
                index: printed,
                start_s: start,
                speech_end_s: end,
                forced_end: forced,
                text: &t.text,
                final_ms,
                transcript: t,
            };
            println!("{}", serde_json::to_string(&u).unwrap_or_default());
        } else if !t.text.is_empty() {
            let end = end.map_or_else(|| "end".to_string(), |e| format!("{e:.2}s"));
            println!("[{start:7.2}s - {end:>8}] {}", t.text);
            println!(
                "    final {final_ms:.0} ms (mel {:.1}, encoder {:.1}, decoder {:.1} ms, {} passes, {} draft tokens kept) for {:.2} s of audio",
                t.timings.mel_ms,
                t.timings.encoder_ms,
                t.timings.decoder_ms,
                t.timings.decoder_passes,
                t.timings.draft_accepted,
                t.audio_secs
            );
        }
        printed += 1;
    };

    if a.whole {
        let mut all = Vec::new();
        let mut rs = pocket_asr::Resampler::new(rate, channels)?;
        while let Some(c) = next_chunk(&mut reader)? {
            rs.process(&c, &mut all)?;
        }
        rs.flush(&mut all);
        let t = rec.transcribe(&all)?;
        let ms = t.timings.total_ms;
        report(&t, 0.0, Some(audio_s), false, ms);
    } else {
        let mut stream = rec.stream();
        let mut offset = 0u64; // 16 kHz samples before the current utterance
        let mut consumed = 0u64;
        while let Some(c) = next_chunk(&mut reader)? {
            stream.accept_any(&c, rate, channels)?;
            consumed += (c.len() / usize::from(channels)) as u64;
            if stream.is_endpoint() {
                let t0 = Instant::now();
                let t = stream.finish()?;
                let ms = t0.elapsed().as_secs_f64() * 1e3;
                let span = stream.span().unwrap_or_default();
                report(
                    &t,
                    (offset + span.start) as f64 / 16_000.0,
                    span.speech_end.map(|e| (offset + e) as f64 / 16_000.0),
                    span.forced,
                    ms,
                );
                offset += span.endpoint_at.unwrap_or(0);
                stream.reset();
            }
        }
        let _ = consumed;
        if stream.in_speech() {
            let t0 = Instant::now();
            let t = stream.finish()?;
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            let start = stream.span().map_or(0, |s| s.start);
            report(&t, (offset + start) as f64 / 16_000.0, None, false, ms);
        }
    }
    let run_s = t_run.elapsed().as_secs_f64();
    let rtf = run_s / audio_s.max(1e-9);
    if a.json {
        let summary = serde_json::json!({
            "file": file.display().to_string(),
            "model": id,
            "threads": a.threads,
            "audio_s": audio_s,
            "load_ms": load_ms,
            "processing_s": run_s,
            "rtf": rtf,
            "utterances": printed,
        });
        println!("{summary}");
    } else {
        if printed == 0 {
            println!("(no speech found)");
        }
        println!(
            "{}: {:.2} s of audio ({} Hz, {} ch) in {:.2} s: RTF {:.3} ({} threads, model {id} loaded in {:.0} ms)",
            file.display(),
            audio_s,
            rate,
            channels,
            run_s,
            rtf,
            a.threads,
            load_ms
        );
    }
    Ok(())
}

/// Interleaved samples in 100 ms of a file with this header, once the recognizer's
/// resampler has accepted its rate (1000..=384000 Hz) and channel count (1..=64).
fn chunk_samples(spec: &hound::WavSpec) -> Result<usize> {
    pocket_asr::Resampler::new(spec.sample_rate, spec.channels)?;
    Ok((spec.sample_rate as usize / 10).max(1) * usize::from(spec.channels))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(sample_rate: u32, channels: u16) -> hound::WavSpec {
        hound::WavSpec {
            channels,
            sample_rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        }
    }

    #[test]
    fn the_header_is_checked_before_any_buffer_is_sized_from_it() {
        assert_eq!(
            chunk_samples(&spec(16_000, 2)).expect("16 kHz stereo"),
            3200
        );
        // u32::MAX Hz x 65535 channels asked for a 2.8e13-sample buffer.
        for (rate, ch) in [
            (u32::MAX, 65_535),
            (u32::MAX, 1),
            (0, 1),
            (16_000, 0),
            (16_000, 65_535),
        ] {
            assert!(chunk_samples(&spec(rate, ch)).is_err(), "{rate} Hz x {ch}");
        }
    }
}
