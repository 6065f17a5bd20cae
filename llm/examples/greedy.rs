//! Greedy decoding from the command line (a development aid, not a test):
//! `cargo run --release -p pocket-llm --example greedy -- MODEL PROMPT [N] [THREADS]`.
//! Prints the generated token ids on one line, then the text.

use std::time::Instant;

use pocket_llm::{Model, Session, SessionOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(prompt)) = (args.next(), args.next()) else {
        return Err("usage: greedy MODEL PROMPT [N] [THREADS]".into());
    };
    let n: usize = args.next().map_or(Ok(32), |s| s.parse())?;
    let threads: usize = args.next().map_or(Ok(2), |s| s.parse())?;
    let t0 = Instant::now();
    let model = Model::load(std::path::Path::new(&path))?;
    eprintln!("loaded in {:?}: {:?}", t0.elapsed(), model);
    let tokens = model.tokenizer().encode(&prompt, false);
    let mut s = Session::new(
        model.clone(),
        SessionOptions {
            context: 2048,
            threads,
            batch: 128,
        },
    )?;
    let t1 = Instant::now();
    let mut logits = s.prefill(&tokens)?;
    let pp = t1.elapsed();
    let mut out = Vec::new();
    let t2 = Instant::now();
    for _ in 0..n {
        let best = logits
            .iter()
            .enumerate()
            .fold(
                (0, f32::NEG_INFINITY),
                |b, (i, &v)| if v > b.1 { (i, v) } else { b },
            )
            .0 as u32;
        out.push(best);
        logits = s.decode(best)?;
    }
    let tg = t2.elapsed();
    println!(
        "{}",
        out.iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("{:?}", model.tokenizer().decode(&out)?);
    eprintln!(
        "prefill {} tokens in {:?} ({:.1} tok/s), decode {n} in {:?} ({:.1} tok/s)",
        tokens.len(),
        pp,
        tokens.len() as f64 / pp.as_secs_f64(),
        tg,
        n as f64 / tg.as_secs_f64()
    );
    Ok(())
}
