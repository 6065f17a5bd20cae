//! Benchmark half for `bench/tts.sh`: speaks each line of a file as one reply with the Piper joe
//! voice and prints one JSON line per reply (time to first chunk, synthesis time, audio length).
//!
//! `cargo run --release -p pocket-tts --example tts_bench -- REPLIES.txt [THREADS] [RUNS]`

use pocket_tts::{PiperOptions, PiperVoice, Voice};
use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or("usage: tts_bench REPLIES.txt [THREADS] [RUNS]")?;
    let threads: usize = args.get(2).map_or(Ok(2), |s| s.parse())?;
    let runs: usize = args.get(3).map_or(Ok(3), |s| s.parse())?;
    let replies: Vec<String> = std::fs::read_to_string(path)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();

    let store = pocket_assets::Store::open_default()?;
    let (onnx, config, ort) = pocket_tts::default_piper_paths(&store)?;
    let t = Instant::now();
    let options = PiperOptions {
        intra_threads: threads,
        ..PiperOptions::default()
    };
    let mut voice = PiperVoice::load_with(&onnx, &config, &ort, &options)?;
    eprintln!("load {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    let cancel = AtomicBool::new(false);
    // Warm-up, as the peer gets.
    voice.synthesize("Warming up, one two three.", &cancel, &mut |_| {
        ControlFlow::Continue(())
    })?;
    for run in 0..runs {
        for (i, reply) in replies.iter().enumerate() {
            let stats = voice.synthesize(reply, &cancel, &mut |_| ControlFlow::Continue(()))?;
            println!(
                "{{\"engine\":\"pocket\",\"run\":{run},\"reply\":{i},\"first_ms\":{:.2},\"total_ms\":{:.2},\"audio_s\":{:.4}}}",
                stats.first_chunk.unwrap_or_default().as_secs_f64() * 1e3,
                stats.elapsed.as_secs_f64() * 1e3,
                stats.audio_seconds()
            );
        }
    }
    Ok(())
}
