//! `pocket ask`: text questions through the voice loop's chat (same model, system prompt,
//! sampler, reply limits and history policy as `converse` and `talk`), one per line, in one
//! ongoing conversation; a JSON line per answer. The text-mode half of the accuracy bench.

use std::io::{BufRead, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use pocket_assets::Store;
use pocket_pipeline::engines::ChatEngine;
use pocket_pipeline::engines::default::model_file;
use pocket_pipeline::engines::llm::LlmChat;

use crate::args::ChatChoiceArgs;

#[derive(Args)]
pub struct AskArgs {
    /// Questions, one per line (`-` = standard input).
    #[arg(long, default_value = "-")]
    pub questions: PathBuf,
    /// Compute threads.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    #[command(flatten)]
    pub chat: ChatChoiceArgs,
}

pub fn run(args: AskArgs) -> Result<()> {
    let store = Store::open_default()?;
    let opts = args.chat.engine_options(&store, args.threads, false);
    let path = model_file(&store, &opts.model)?;
    let mut chat = LlmChat::load_with(
        &path,
        pocket_pipeline::engines::llm::VoiceChatConfig {
            threads: args.threads.max(1),
            ..opts.chat
        },
    )
    .with_context(|| format!("loading {}", path.display()))?;
    chat.prepare()?;
    let input: Box<dyn BufRead> = if args.questions.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(&args.questions)
            .with_context(|| format!("opening {}", args.questions.display()))?;
        Box::new(std::io::BufReader::new(f))
    };
    let never = AtomicBool::new(false);
    let mut out = std::io::stdout().lock();
    for line in input.lines() {
        let question = line?;
        let question = question.trim();
        if question.is_empty() {
            continue;
        }
        let start = Instant::now();
        let mut first = None;
        let mut reply = String::new();
        chat.reply(question, &never, &mut |piece| {
            first.get_or_insert_with(|| start.elapsed());
            reply.push_str(piece);
            ControlFlow::Continue(())
        })?;
        let line = serde_json::json!({
            "question": question,
            "reply": reply.trim(),
            "first_piece_ms": first.map(|d| d.as_secs_f64() * 1e3),
            "total_ms": start.elapsed().as_secs_f64() * 1e3,
        });
        writeln!(out, "{line}")?;
        out.flush()?;
    }
    Ok(())
}
