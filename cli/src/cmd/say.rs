//! `pocket say`: speak text into a WAV file, printing time to first chunk and real-time factor.

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use pocket_tts::{FallbackVoice, PiperOptions, PiperVoice, Voice};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VoiceChoice {
    /// Piper en_US-joe-medium (needs the piper voice and onnxruntime assets, and espeak-ng).
    Joe,
    /// The built-in flite voice (no download).
    Flite,
}

#[derive(Args, Debug)]
pub struct SayArgs {
    /// The text to speak (markdown, numbers and the like are normalized).
    pub text: String,
    /// Output WAV file (16-bit mono).
    #[arg(short, long)]
    pub output: PathBuf,
    #[arg(long, value_enum, default_value_t = VoiceChoice::Joe)]
    pub voice: VoiceChoice,
    /// Resample the output to this rate in Hz, 4000 to 384000 (default: the voice's own).
    #[arg(long, value_parser = clap::value_parser!(u32).range(
        i64::from(pocket_tts::MIN_SAMPLE_RATE)..=i64::from(pocket_tts::MAX_SAMPLE_RATE)
    ))]
    pub rate: Option<u32>,
    /// ONNX Runtime intra-op threads for Piper.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Custom Piper voice: path to its .onnx (its .onnx.json must sit beside it).
    #[arg(long)]
    pub model: Option<PathBuf>,
}

pub fn run(args: SayArgs) -> Result<()> {
    let load_start = Instant::now();
    let mut voice: Box<dyn Voice> = match (args.voice, &args.model) {
        (VoiceChoice::Flite, _) => Box::new(FallbackVoice::new()),
        (VoiceChoice::Joe, model) => {
            let store = pocket_assets::Store::open_default()?;
            let (onnx, config, ort) = match model {
                Some(m) => {
                    let ort = store
                        .require_file(pocket_assets::ids::ONNXRUNTIME, pocket_tts::ORT_LIBRARY)?;
                    let config = PathBuf::from(format!("{}.json", m.display()));
                    (m.clone(), config, ort)
                }
                None => pocket_tts::default_piper_paths(&store).context(
                    "Piper voice not installed (run `pocket assets fetch`, or use --voice flite)",
                )?,
            };
            let options = PiperOptions {
                intra_threads: args.threads,
                ..PiperOptions::default()
            };
            Box::new(PiperVoice::load_with(&onnx, &config, &ort, &options)?)
        }
    };
    let load = load_start.elapsed();

    let cancel = AtomicBool::new(false);
    let mut pcm = Vec::new();
    let stats = voice.synthesize(&args.text, &cancel, &mut |chunk| {
        pcm.extend_from_slice(chunk);
        ControlFlow::Continue(())
    })?;
    let native = voice.sample_rate();
    let rate = args.rate.unwrap_or(native);
    let pcm = pocket_tts::resample(&pcm, native, rate)?;
    pocket_tts::write_wav(&args.output, &pcm, rate)?;

    println!("voice            {}", voice.name());
    println!("load             {:.0} ms", load.as_secs_f64() * 1e3);
    match stats.first_chunk {
        Some(t) => println!("first chunk      {:.1} ms", t.as_secs_f64() * 1e3),
        None => println!("first chunk      - (nothing speakable)"),
    }
    println!(
        "audio            {:.2} s in {} chunks",
        stats.audio_seconds(),
        stats.chunks
    );
    println!(
        "synthesis        {:.1} ms",
        stats.elapsed.as_secs_f64() * 1e3
    );
    println!("RTF              {:.4}", stats.rtf());
    println!("wrote            {} ({} Hz)", args.output.display(), rate);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        say: SayArgs,
    }

    fn parse(rate: &str) -> Result<Option<u32>, clap::Error> {
        Cli::try_parse_from(["say", "hello", "-o", "out.wav", "--rate", rate]).map(|c| c.say.rate)
    }

    #[test]
    fn the_output_rate_is_checked_when_the_arguments_are_read() {
        assert_eq!(parse("48000").expect("48 kHz"), Some(48_000));
        for rate in ["4294967295", "0", "1", "384001"] {
            assert!(parse(rate).is_err(), "--rate {rate} must be refused");
        }
    }
}
