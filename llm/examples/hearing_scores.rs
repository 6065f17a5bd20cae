//! How likely a language model finds each hearing of a spoken question, for choosing among a
//! recognizer's hearings (docs/PERFORMANCE.md, "The words judge picks the hearing"): reads the
//! `.hearings.tsv` of `asr_questions` (voice, clip, question, rank, text, the recognizer's
//! summed log-probability, its tokens) and prints each line with two more columns: the
//! model's summed log-probability of the text as a user's message ([`TextScorer`], system
//! prompt "You are a helpful voice assistant.") and the tokens that took. Usage:
//! `cargo run --release -p pocket-llm --example hearing_scores -- MODEL.gguf FILE`.

use std::path::Path;

use pocket_llm::{Model, TextScorer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(model), Some(file)) = (args.get(1), args.get(2)) else {
        return Err("usage: hearing_scores MODEL.gguf FILE".into());
    };
    let model = Model::load(Path::new(model))?;
    let mut scorer = TextScorer::new(model, Some("You are a helpful voice assistant."), 2)?;
    for (n, line) in std::fs::read_to_string(file)?.lines().enumerate() {
        if n == 0 {
            println!("{line}\tlm_logprob\tlm_tokens");
            continue;
        }
        let text = line.split('\t').nth(4).unwrap_or_default();
        match scorer.log_prob(text)? {
            Some(s) => println!("{line}\t{:.4}\t{}", s.sum, s.tokens),
            None => println!("{line}\t-inf\t1"),
        }
    }
    Ok(())
}
