//! Prints the logits after each token of a prompt, one line per position (a development aid
//! for comparisons with llama.cpp's `llama_golden logits`).
//! `cargo run --release -p pocket-llm --example logits -- MODEL PROMPT` (or `ids:1 2 3`)

use pocket_llm::{LoadOptions, Model, Session, SessionOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(prompt)) = (args.next(), args.next()) else {
        return Err("usage: logits MODEL PROMPT".into());
    };
    // POCKET_NO_REPACK=1: row-major kernels only (GGML's accumulation order).
    let repack = std::env::var_os("POCKET_NO_REPACK").is_none();
    let model = Model::load_with(
        std::path::Path::new(&path),
        LoadOptions {
            repack,
            ..LoadOptions::default()
        },
    )?;
    // `ids:1 2 3` gives raw token ids instead of text.
    let tokens: Vec<u32> = match prompt.strip_prefix("ids:") {
        Some(ids) => ids
            .split_whitespace()
            .map(|t| t.parse())
            .collect::<Result<_, _>>()?,
        None => model.tokenizer().encode(&prompt, false),
    };
    let mut s = Session::new(
        model,
        SessionOptions {
            context: 1024,
            threads: 2,
            batch: 1,
        },
    )?;
    for &t in &tokens {
        let logits = s.decode(t)?;
        let line: Vec<String> = logits.iter().map(|v| format!("{v:.6}")).collect();
        println!("{}", line.join(" "));
    }
    Ok(())
}
