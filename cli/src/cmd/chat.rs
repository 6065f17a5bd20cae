//! `pocket chat`: talk with the LLM in the terminal, replies streamed as they are generated
//! (`-p` for one prompt and exit). Timing of each reply goes to stderr.

use std::io::{BufRead, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use pocket_llm::chat::HistoryPolicy;
use pocket_llm::sampler::SamplerConfig;
use pocket_llm::{ChatSession, Model, ReplyOutcome, SessionConfig};

use super::llm::{model_path, short};

#[derive(Args, Debug)]
pub struct ChatArgs {
    /// GGUF model (default: the SmolLM2-135M asset).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// One prompt: print the reply and exit.
    #[arg(short = 'p', long = "prompt")]
    pub prompt: Option<String>,
    /// Compute threads.
    #[arg(short, long, default_value_t = 2)]
    pub threads: usize,
    /// System prompt (default: the model's own, if it has one).
    #[arg(long)]
    pub system: Option<String>,
    /// Sampling temperature (0 = greedy).
    #[arg(long, default_value_t = 0.7)]
    pub temp: f32,
    /// Random seed of the sampler.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Longest reply in tokens.
    #[arg(long, default_value_t = 512)]
    pub max_tokens: usize,
    /// Context size (tokens).
    #[arg(long, default_value_t = 4096)]
    pub ctx: usize,
    /// Let Qwen3-style models think first (the thoughts are not shown).
    #[arg(long)]
    pub think: bool,
    /// Which earlier turns the model sees: all (that fit), last:N exchanges, tokens:N.
    #[arg(long, default_value = "all")]
    pub history: HistoryPolicy,
}

pub fn run(a: ChatArgs) -> Result<()> {
    let path = model_path(a.model)?;
    let t = Instant::now();
    let model = Model::load(&path).with_context(|| format!("cannot load {}", path.display()))?;
    eprintln!("loaded {} in {}", path.display(), short(t.elapsed()));
    let sampler = SamplerConfig {
        temperature: a.temp,
        seed: a.seed,
        ..SamplerConfig::default()
    };
    let cfg = SessionConfig {
        system_prompt: a.system,
        max_context: a.ctx,
        threads: a.threads,
        sampler,
        thinking: a.think,
        max_reply_tokens: a.max_tokens,
        history: a.history,
        avoid_copy_ngram: 0,
        avoid_echo_words: 0,
        drafts: pocket_llm::Drafts::default(),
    };
    let mut chat = ChatSession::new(model, cfg)?;
    let cancel = AtomicBool::new(false);
    if let Some(p) = a.prompt {
        let out = say(&mut chat, &p, &cancel)?;
        report(&out);
        return Ok(());
    }
    chat.prime()?;
    eprintln!("type a message (empty line or Ctrl-D to quit, /reset to start over)");
    let stdin = std::io::stdin();
    loop {
        eprint!("> ");
        std::io::stderr().flush()?;
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim();
        if line.is_empty() {
            break;
        }
        if line == "/reset" {
            chat.reset();
            continue;
        }
        let out = say(&mut chat, line, &cancel)?;
        report(&out);
    }
    Ok(())
}

fn say(chat: &mut ChatSession, text: &str, cancel: &AtomicBool) -> Result<ReplyOutcome> {
    let mut stdout = std::io::stdout();
    let out = chat.reply(text, cancel, &mut |piece| {
        let _ = stdout.write_all(piece.as_bytes());
        let _ = stdout.flush();
        ControlFlow::Continue(())
    })?;
    println!();
    Ok(out)
}

fn report(o: &ReplyOutcome) {
    let t = &o.timings;
    let rate = if t.decode.is_zero() {
        0.0
    } else {
        o.tokens as f64 / t.decode.as_secs_f64()
    };
    eprintln!(
        "[{} prompt tokens in {}, first token after {}, {} tokens at {:.1} tok/s{}]",
        o.prefill_tokens,
        short(t.prefill),
        short(t.first_token),
        o.tokens,
        rate,
        if o.dropped_turns > 0 {
            format!(", {} old turns dropped", o.dropped_turns)
        } else {
            String::new()
        }
    );
}
