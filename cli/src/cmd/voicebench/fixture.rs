//! `pocket voicebench fixture`: a small VoiceBench-format set for tests and demos, each
//! prompt spoken by a voice the product does not use (flite slt/rms, espeak-ng en-us+f3) and
//! written as parquet in VoiceBench's layout `DIR/<subset>/test-00000-of-00001.parquet`.
//! Prompts are spoken piece by piece with long pauses between them (see `spoken_pieces`), as
//! real VoiceBench prompts pause between options and sentences: a harness or loop that ends
//! the turn at a pause answers a fragment, and the fixture's tests catch it.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use clap::Args;
use pocket_voicebench::{AudioClip, decode_audio_bytes, encode_wav_16bit, write_parquet};

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

/// Silence after each option of a multiple-choice prompt, in turn (ms): at least 1.5 s.
const OPTION_PAUSES_MS: [u32; 3] = [1500, 1800, 2000];
/// Silence between the sentences of a prompt (ms), on top of the voice's own.
const SENTENCE_PAUSE_MS: u32 = 1200;

/// A prompt cut where a reader pauses, each piece with the silence after it (ms): the
/// question and each option of a multiple-choice prompt (one per line), and the sentences
/// of a longer prompt. The last piece has none.
pub fn spoken_pieces(prompt: &str) -> Vec<(String, u32)> {
    let lines: Vec<&str> = prompt.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut pieces = Vec::new();
    if lines.len() > 1 {
        for (i, line) in lines.iter().enumerate() {
            pieces.push((line.trim().to_string(), OPTION_PAUSES_MS[i % 3]));
        }
    } else {
        for sentence in sentences(prompt) {
            pieces.push((sentence, SENTENCE_PAUSE_MS));
        }
    }
    if let Some(last) = pieces.last_mut() {
        last.1 = 0;
    }
    pieces
}

/// Sentences: cut after `.`, `?` or `!` followed by a space and a capital letter.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for w in chars.windows(3) {
        let [(_, end), (_, space), (next_at, next)] = [w[0], w[1], w[2]];
        if matches!(end, '.' | '?' | '!') && space == ' ' && next.is_uppercase() {
            out.push(text[start..next_at].trim().to_string());
            start = next_at;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// Speaks `text` into `wav` with voice `i % 3`.
fn speak(i: usize, text: &str, wav: &Path) -> Result<()> {
    let (program, voice) = VOICES[i % VOICES.len()];
    let mut cmd = Command::new(program);
    match program {
        "flite" => cmd.args(["-voice", voice, "-t", text, "-o"]).arg(wav),
        _ => cmd.args(["-v", voice, "-w"]).arg(wav).arg(text),
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

/// The whole prompt spoken by voice `i % 3`, piece by piece with the pauses of
/// [`spoken_pieces`], as one WAV file's bytes.
fn speak_prompt(i: usize, prompt: &str, dir: &Path) -> Result<Vec<u8>> {
    let mut all = Vec::new();
    let mut rate = 0;
    for (k, (piece, pause_ms)) in spoken_pieces(prompt).iter().enumerate() {
        let wav = dir.join(format!("piece-{i}-{k}.wav"));
        speak(i, piece, &wav)?;
        let bytes = std::fs::read(&wav).with_context(|| format!("reading {}", wav.display()))?;
        let audio = decode_audio_bytes(&bytes, &wav.display().to_string())?;
        if rate != 0 && audio.sample_rate != rate {
            bail!(
                "{}: {} Hz after {rate} Hz",
                wav.display(),
                audio.sample_rate
            );
        }
        rate = audio.sample_rate;
        all.extend_from_slice(&audio.samples);
        all.extend(std::iter::repeat_n(0.0, (rate * pause_ms / 1000) as usize));
    }
    Ok(encode_wav_16bit(&all, rate)?)
}

pub fn run(args: FixtureArgs) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let mut n = 0;
    for subset in subsets() {
        let mut samples = subset.samples;
        for s in &mut samples {
            let name = format!("{}_{}.wav", subset.name, s.sample_key.index);
            let bytes = speak_prompt(n, &s.prompt, tmp.path())?;
            // Which voice read it: tests hold the flite voices to a word error rate.
            let (program, voice) = VOICES[n % VOICES.len()];
            s.extra
                .insert("voice".into(), format!("{program} {voice}").into());
            n += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_pause_at_least_a_second_and_a_half_and_sentences_are_cut() {
        let p = spoken_pieces("Which is a source of light?\nA. the moon\nB. the sun");
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].0, "Which is a source of light?");
        assert!(p[..2].iter().all(|(_, ms)| *ms >= 1500), "{p:?}");
        assert_eq!(p[2], ("B. the sun".to_string(), 0));
        let p = spoken_pieces("Write a poem. Use no commas! Is that clear? e.g. 3.5 is fine.");
        let texts: Vec<&str> = p.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Write a poem.",
                "Use no commas!",
                "Is that clear? e.g. 3.5 is fine."
            ]
        );
        assert_eq!(p[0].1, SENTENCE_PAUSE_MS);
    }
}
