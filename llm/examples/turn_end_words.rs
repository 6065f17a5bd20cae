//! The words-only end-of-turn judgement (`ChatSession::turn_end_probability`) over a list of
//! sentences, to choose `SemanticEndpoint::threshold`: for each line "first part | rest"
//! (bench/turn-taking.txt) it prints P(whole turn) of the part alone and of the whole
//! sentence; for a line without "|" (e.g. the question column of bench/questions.tsv) only
//! the whole. Usage: `cargo run --release -p pocket-llm --example turn_end_words -- MODEL.gguf
//! FILE` (tab-separated output: kind, P, words).

use std::path::Path;
use std::sync::atomic::AtomicBool;

use pocket_llm::chat::HistoryPolicy;
use pocket_llm::sampler::SamplerConfig;
use pocket_llm::{ChatSession, Model, SessionConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(model), Some(file)) = (args.get(1), args.get(2)) else {
        return Err("usage: turn_end_words MODEL.gguf FILE".into());
    };
    let model = Model::load(Path::new(model))?;
    let mut chat = ChatSession::new(
        model,
        SessionConfig {
            system_prompt: Some("You are a helpful voice assistant.".into()),
            max_context: 1024,
            threads: 2,
            sampler: SamplerConfig::greedy(),
            thinking: false,
            max_reply_tokens: 64,
            history: HistoryPolicy::AllThatFit,
            avoid_copy_ngram: 0,
            avoid_echo_words: 0,
            drafts: pocket_llm::Drafts::default(),
        },
    )?;
    let never = AtomicBool::new(false);
    for line in std::fs::read_to_string(file)?.lines() {
        let line = line.split('\t').next().unwrap_or_default().trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (part, whole) = match line.split_once('|') {
            Some((a, b)) => (Some(a.trim()), format!("{} {}", a.trim(), b.trim())),
            None => (None, line.to_string()),
        };
        for (kind, words) in part
            .map(|p| ("part", p))
            .into_iter()
            .chain([("whole", &*whole)])
        {
            let p = chat
                .turn_end_probability(words, &never)?
                .unwrap_or(f32::NAN);
            println!("{kind}\t{p:.4}\t{words}");
        }
    }
    Ok(())
}
