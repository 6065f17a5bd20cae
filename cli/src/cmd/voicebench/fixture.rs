//! `pocket voicebench fixture`: a small VoiceBench-format set for tests and demos, each
//! prompt spoken by a voice the product does not use (flite slt/rms, espeak-ng en-us+f3) and
//! written as parquet in VoiceBench's layout `DIR/<subset>/test-00000-of-00001.parquet`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use clap::Args;
use pocket_voicebench::{AudioClip, write_parquet};

use super::fixture_data::subsets;

#[derive(Args)]
pub struct FixtureArgs {
    /// The folder to write (one subfolder per subset).
    #[arg(long)]
    pub out: PathBuf,
}

/// The voices, used in turn: (program, its voice argument).
const VOICES: [(&str, &str); 3] = [
    ("flite", "slt"),
    ("flite", "rms"),
    ("espeak-ng", "en-us+f3"),
];

/// Speaks `text` into `wav` with voice `i % 3`.
fn speak(i: usize, text: &str, wav: &Path) -> Result<()> {
    let (program, voice) = VOICES[i % VOICES.len()];
    // Read the options aloud as "A, ..." pauses instead of a newline the voices skip over.
    let spoken = text.replace('\n', ". ");
    let mut cmd = Command::new(program);
    match program {
        "flite" => cmd.args(["-voice", voice, "-t", &spoken, "-o"]).arg(wav),
        _ => cmd.args(["-v", voice, "-w"]).arg(wav).arg(&spoken),
    };
    let out = cmd
        .output()
        .with_context(|| format!("running {program} (install the Debian package {program})"))?;
    if !out.status.success() {
        bail!(
            "{program} -voice {voice} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

pub fn run(args: FixtureArgs) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let mut n = 0;
    for subset in subsets() {
        let mut samples = subset.samples;
        for s in &mut samples {
            let name = format!("{}_{}.wav", subset.name, s.sample_key.index);
            let wav = tmp.path().join(&name);
            speak(n, &s.prompt, &wav)?;
            n += 1;
            let bytes =
                std::fs::read(&wav).with_context(|| format!("reading {}", wav.display()))?;
            s.audio = Some(AudioClip {
                bytes,
                path: Some(name),
            });
        }
        let dir = args.out.join(subset.name);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let file = dir.join("test-00000-of-00001.parquet");
        write_parquet(&file, &samples).with_context(|| format!("writing {}", file.display()))?;
        eprintln!("{}: {} samples", file.display(), samples.len());
    }
    Ok(())
}
