//! Backchannels and interruptions as words: recognizes each clip of a list (`bench/
//! backchannel-words.sh` makes it: path, `b` for a backchannel or `i` for an interruption,
//! the text spoken, the voice) with the plain prompt and with the over-reply prompt, and counts
//! how often the product's rule ([`is_backchannel`]) would let a backchannel cut a reply off
//! (false interruption) or a real interruption go unheard (miss), with the word list of this
//! build. The loop itself is measured by `bench/backchannels.sh`; this isolates the words.
//! Usage: `backchannel_words LIST.tsv [whisper-tiny.en]`

use std::path::Path;

use pocket_asr::{Context, Recognizer};
use pocket_pipeline::audio::wav::read_mono;
use pocket_pipeline::backchannel::is_backchannel;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let list = args
        .first()
        .ok_or_else(|| anyhow::anyhow!("usage: backchannel_words LIST.tsv [MODEL_ID]"))?;
    let id = args.get(1).map_or("whisper-tiny.en", String::as_str);
    let dir = pocket_assets::Store::open_default()?.require(id)?;
    let rec = Recognizer::load(&dir, Default::default())?;
    let text = std::fs::read_to_string(list)?;
    let mut rows = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let [path, kind, said, voice] = f[..] else {
            anyhow::bail!("{list}: expected 4 tab-separated fields: {line:?}");
        };
        anyhow::ensure!(
            kind == "b" || kind == "i",
            "{list}: kind {kind:?} is not b or i"
        );
        // Read once, recognized in both contexts.
        let samples = read_mono(Path::new(path), 16_000)?;
        rows.push((samples, kind == "b", said, voice));
    }
    for (name, context) in [
        ("plain", Context::Plain),
        ("over-reply", Context::OverReply),
    ] {
        let (mut backchannels, mut cut, mut interruptions, mut missed) = (0, 0, 0, 0);
        for (samples, is_bc, said, voice) in &rows {
            let heard = rec.transcribe_in(samples, context)?.text;
            let taken_for_bc = is_backchannel(&heard);
            if *is_bc {
                backchannels += 1;
                if !taken_for_bc {
                    cut += 1;
                    println!("{name}\tfalse interruption\t{voice}\t{said}\t{heard:?}");
                }
            } else {
                interruptions += 1;
                if taken_for_bc {
                    missed += 1;
                    println!("{name}\tmissed interruption\t{voice}\t{said}\t{heard:?}");
                }
            }
        }
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        println!(
            "{name} prompt: backchannels taken for interruptions {cut}/{backchannels} ({:.1}%), \
             interruptions taken for backchannels {missed}/{interruptions} ({:.1}%)",
            pct(cut, backchannels),
            pct(missed, interruptions)
        );
    }
    Ok(())
}
