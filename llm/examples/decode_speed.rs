//! Decode speed of one model, robust to a busy machine (a development aid, not a test):
//! `cargo run --release -p pocket-llm --example decode_speed -- MODEL [TOKENS] [ROUNDS] [THREADS] [rows]`.
//! `rows` loads without repacking (the row-major kernels), for A/B runs under the same load.
//! Decodes TOKENS tokens from an empty cache ROUNDS times and prints tok/s from the best
//! round, the median round and the median single token (other processes inflate the mean).

use std::time::Instant;

use pocket_llm::{Model, Session, SessionOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        return Err("usage: decode_speed MODEL [TOKENS] [ROUNDS] [THREADS] [rows]".into());
    };
    let n: usize = args.next().map_or(Ok(128), |s| s.parse())?;
    let rounds: usize = args.next().map_or(Ok(5), |s| s.parse())?;
    let threads: usize = args.next().map_or(Ok(2), |s| s.parse())?;
    let opts = pocket_llm::LoadOptions {
        repack: args.next().as_deref() != Some("rows"),
        ..Default::default()
    };
    let model = Model::load_with(std::path::Path::new(&path), opts)?;
    let vocab = model.config().vocab_size as u32;
    let mut s = Session::new(
        model,
        SessionOptions {
            context: n.max(1),
            threads,
            batch: 1,
        },
    )?;
    let mut round_times = Vec::new();
    let mut token_times = Vec::new();
    for r in 0..=rounds {
        s.clear();
        let t0 = Instant::now();
        for i in 0..n {
            let t = Instant::now();
            s.decode((i as u32 * 7919 + r as u32) % vocab)?;
            if r > 0 {
                token_times.push(t.elapsed().as_secs_f64());
            }
        }
        if r > 0 {
            round_times.push(t0.elapsed().as_secs_f64());
        }
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let best = round_times.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "tg{n}: best round {:.1} tok/s, median round {:.1} tok/s, median token {:.1} tok/s",
        n as f64 / best,
        n as f64 / med(&mut round_times),
        1.0 / med(&mut token_times)
    );
    Ok(())
}
