//! Benchmark half for `bench/tts.sh`: speaks each line of a file as one reply with the Piper joe
//! voice and prints one JSON line per reply (time to first chunk, synthesis time, audio length).
//!
//! `cargo run --release -p pocket-tts --example tts_bench -- REPLIES.txt [THREADS] [RUNS]`
//! (`-- --model-path` prints the voice's .onnx path, for the peer).

use pocket_tts::{PiperOptions, PiperVoice, Voice};
use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--model-path") {
        let store = pocket_assets::Store::open_default()?;
        println!("{}", pocket_tts::default_piper_paths(&store)?.0.display());
        return Ok(());
    }
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
            let cpu0 = cpu_ms();
            let stats = voice.synthesize(reply, &cancel, &mut |_| ControlFlow::Continue(()))?;
            let cpu = cpu_ms() - cpu0;
            println!(
                "{{\"engine\":\"pocket\",\"run\":{run},\"reply\":{i},\"first_ms\":{:.2},\"total_ms\":{:.2},\"cpu_ms\":{cpu:.1},\"audio_s\":{:.4}}}",
                stats.first_chunk.unwrap_or_default().as_secs_f64() * 1e3,
                stats.elapsed.as_secs_f64() * 1e3,
                stats.audio_seconds()
            );
        }
    }
    Ok(())
}

/// CPU time (user + system) of this process so far, from /proc (Linux, 100 ticks per second).
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // After the command name: state is field 0, utime field 11, stime field 12.
    (ticks(11) + ticks(12)) * 10.0
}
