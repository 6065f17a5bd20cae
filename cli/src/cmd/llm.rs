//! `pocket llm`: benchmark the LLM engine (`bench`), write random-weight models of a given
//! shape (`synth`) and rewrite a model in another weight format (`requant`).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use clap::{Args, Subcommand};
use pocket_llm::bench::{BenchOptions, read_bandwidth};
use pocket_llm::gguf::GgufFile;
use pocket_llm::requant::{RequantOptions, Target, requantize};
use pocket_llm::synth::{SynthQuant, SynthShape, write_synth};
use pocket_llm::{LlmError, Model};

#[derive(Subcommand, Debug)]
pub enum LlmCommand {
    /// Prefill and decode speed and peak memory, llama-bench style (pp / tg).
    Bench(BenchArgs),
    /// Write a random-weight GGUF of a known shape (MNN-Pocket-0.3B or a tiny test model).
    Synth(SynthArgs),
    /// Rewrite a GGUF model with its weight matrices in another format (metadata, tokenizer,
    /// norms and biases unchanged), as `llama-quantize --pure`.
    Requant(RequantArgs),
    /// Measure memory read bandwidth (the ceiling for decode speed).
    Membw(MembwArgs),
}

#[derive(Args, Debug)]
pub struct MembwArgs {
    /// Threads reading.
    #[arg(short, long, default_value_t = 2)]
    pub threads: usize,
    /// Buffer size in MiB (well above the last-level cache; 1 to 16384).
    #[arg(long, default_value_t = 512)]
    pub mib: usize,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// GGUF model (default: the SmolLM2-135M asset).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Prompt tokens run as one prefill (0 = skip).
    #[arg(short = 'p', long = "prompt", default_value_t = 128)]
    pub prompt: usize,
    /// Tokens generated one by one (0 = skip).
    #[arg(short = 'n', long = "gen", default_value_t = 128)]
    pub gen_tokens: usize,
    /// Compute threads.
    #[arg(short, long, default_value_t = 2)]
    pub threads: usize,
    /// KV cache size (default: just what the test needs, as llama-bench).
    #[arg(long)]
    pub ctx: Option<usize>,
    /// Timed repetitions (after one warm-up).
    #[arg(short, long, default_value_t = 5)]
    pub reps: usize,
    /// Fill the whole context once before measuring (peak memory with a full KV cache).
    #[arg(long)]
    pub fill_ctx: bool,
    /// Also measure memory read bandwidth (as `pocket llm membw`, same threads) and report
    /// decode's weight reads as a fraction of it.
    #[arg(long)]
    pub membw: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct SynthArgs {
    /// mnn-pocket-0.3b or tiny-qwen3.
    #[arg(long, default_value = "mnn-pocket-0.3b")]
    pub shape: String,
    /// q4_1, q4_0, q5_0, q5_1, q5_k, q8_0 or f16 (q5_k: Q5_1 for matrices whose rows are
    /// not whole 256-element super-blocks, as llama.cpp does).
    #[arg(long, default_value = "q4_1")]
    pub quant: String,
    /// Random seed (same seed, same file).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file.
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
pub struct RequantArgs {
    /// GGUF model to read.
    #[arg(long)]
    pub model: PathBuf,
    /// Format of the weight matrices, as llama.cpp names it (q4_0, q8_0, q4_k, ...; an
    /// unknown name lists them all).
    #[arg(long)]
    pub quant: String,
    /// Format for matrices whose rows are not whole blocks of --quant (K-quants need rows of
    /// 256): a format name, or `llama` for llama.cpp's choice (q4_k: q5_0, q5_k: q5_1,
    /// q6_k: q8_0).
    /// Without it such rows are an error.
    #[arg(long)]
    pub fallback: Option<String>,
    /// Output file.
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn run(cmd: LlmCommand) -> Result<()> {
    match cmd {
        LlmCommand::Bench(a) => bench(a),
        LlmCommand::Synth(a) => synth(a),
        LlmCommand::Requant(a) => requant(a),
        LlmCommand::Membw(a) => membw(a),
    }
}

fn membw(a: MembwArgs) -> Result<()> {
    let bw = read_bandwidth(a.threads, a.mib).map_err(flag_error)?;
    let (threads, best) = (bw.threads, bw.read_bytes_per_s);
    if a.json {
        println!(
            "{}",
            serde_json::json!({ "threads": threads, "read_bytes_per_s": best })
        );
    } else {
        println!(
            "read bandwidth with {threads} threads: {:.2} GB/s",
            best / 1e9
        );
    }
    Ok(())
}

/// A bad `--mib`, named as the flag.
fn flag_error(e: LlmError) -> anyhow::Error {
    match e {
        LlmError::BandwidthBuffer { mib, max } => anyhow!("--mib {mib} is outside 1..={max}"),
        e => e.into(),
    }
}

/// The model to use: `path`, or the default SmolLM2 asset.
pub fn model_path(path: Option<PathBuf>) -> Result<PathBuf> {
    match path {
        Some(p) => Ok(p),
        None => {
            let store = pocket_assets::Store::open_default()?;
            Ok(store.require_file(
                pocket_assets::ids::SMOLLM2,
                pocket_assets::ids::SMOLLM2_FILE,
            )?)
        }
    }
}

fn requant(a: RequantArgs) -> Result<()> {
    let target = |name: &str| {
        Target::from_name(name)
            .with_context(|| format!("unknown format {name} ({})", Target::names()))
    };
    let t = target(&a.quant)?;
    let fallback = match a.fallback.as_deref() {
        None => None,
        Some("llama") => t.llama_fallback.map(|d| target(d.name())).transpose()?,
        Some(f) => Some(target(f)?),
    };
    let opts = RequantOptions {
        target: t,
        fallback,
    };
    let start = Instant::now();
    let src =
        GgufFile::open(&a.model).with_context(|| format!("cannot read {}", a.model.display()))?;
    let report = write_atomically(&a.output, |out| Ok(requantize(&src, &opts, out)?))?;
    let counts: Vec<String> = report
        .counts()
        .iter()
        .map(|(d, n)| format!("{n} {}", d.name()))
        .collect();
    eprintln!(
        "wrote {} ({} bytes; tensors: {}) in {:.1?}",
        a.output.display(),
        report.bytes,
        counts.join(", "),
        start.elapsed()
    );
    Ok(())
}

/// Writes `path` through `write` into `path.partial`, renamed into place only on success.
fn write_atomically<T>(
    path: &std::path::Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<T>,
) -> Result<T> {
    let tmp = path.with_extension("gguf.partial");
    let file =
        std::fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let r = write(&mut out).and_then(|v| {
        out.flush()
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        Ok(v)
    });
    drop(out);
    match r {
        Ok(v) => {
            std::fs::rename(&tmp, path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(v)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn synth(a: SynthArgs) -> Result<()> {
    let shape = SynthShape::from_name(&a.shape)
        .with_context(|| format!("unknown shape {} (mnn-pocket-0.3b, tiny-qwen3)", a.shape))?;
    let quant = SynthQuant::from_name(&a.quant).with_context(|| {
        format!(
            "unknown quant {} (q4_1, q4_0, q5_0, q5_1, q5_k, q8_0, f16)",
            a.quant
        )
    })?;
    let t = Instant::now();
    let bytes = write_atomically(&a.output, |out| Ok(write_synth(out, shape, quant, a.seed)?))?;
    eprintln!(
        "wrote {} ({} bytes, {} {}, seed {}) in {:.1?}",
        a.output.display(),
        bytes,
        shape.name(),
        a.quant,
        a.seed,
        t.elapsed()
    );
    Ok(())
}

fn bench(a: BenchArgs) -> Result<()> {
    let path = model_path(a.model)?;
    let t = Instant::now();
    let model = Model::load(&path).with_context(|| format!("cannot load {}", path.display()))?;
    let load = t.elapsed();
    let options = BenchOptions {
        prompt: a.prompt,
        gen_tokens: a.gen_tokens,
        threads: a.threads,
        ctx: a.ctx,
        reps: a.reps,
        fill_ctx: a.fill_ctx,
        membw: a.membw,
    };
    let r = pocket_llm::bench::run(&model, &options)?;
    let ((pp_mean, pp_sd), (tg_mean, tg_sd)) = (r.prefill_tok_s, r.decode_tok_s);
    let (rss, weights) = (r.peak_rss_bytes, r.weight_bytes_per_token);
    let (decode_read, bw) = (r.decode_read_bytes_per_s, r.membw_read_bytes_per_s);
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    if a.json {
        let j = serde_json::json!({
            "model": name,
            "path": path,
            "arch": model.config().arch.name(),
            "threads": r.threads,
            "context": r.context,
            "kv_cache_bytes": r.kv_cache_bytes,
            "load_seconds": load.as_secs_f64(),
            "prompt_tokens": a.prompt,
            "gen_tokens": a.gen_tokens,
            "prefill_tok_s": pp_mean,
            "prefill_tok_s_sd": pp_sd,
            "decode_tok_s": tg_mean,
            "decode_tok_s_sd": tg_sd,
            "weight_bytes_per_token": weights,
            "decode_read_bytes_per_s": decode_read,
            "membw_read_bytes_per_s": bw,
            "decode_membw_fraction": r.decode_membw_fraction(),
            "peak_rss_bytes": rss,
            "repacked_matrices": model.repacked_matrices(),
        });
        println!("{j}");
    } else {
        let mut o = std::io::stdout().lock();
        writeln!(
            o,
            "model: {} ({}, {} threads, context {}, loaded in {:.2?})",
            name,
            model.config().arch.name(),
            r.threads,
            r.context,
            load
        )?;
        if a.prompt > 0 {
            writeln!(o, "pp{:<5} {:8.1} ± {:5.1} tok/s", a.prompt, pp_mean, pp_sd)?;
        }
        if a.gen_tokens > 0 {
            writeln!(
                o,
                "tg{:<5} {:8.1} ± {:5.1} tok/s",
                a.gen_tokens, tg_mean, tg_sd
            )?;
        }
        writeln!(
            o,
            "weights read per token: {:.1} MB; KV cache: {:.1} MB; peak RSS: {}",
            weights as f64 / 1e6,
            r.kv_cache_bytes as f64 / 1e6,
            rss.map_or("?".into(), |r| format!("{:.1} MB", r as f64 / 1e6))
        )?;
        if a.gen_tokens > 0 {
            write!(o, "decode reads {:.2} GB/s of weights", decode_read / 1e9)?;
            match bw {
                Some(b) => writeln!(
                    o,
                    " = {:.0}% of measured read bandwidth ({:.2} GB/s)",
                    100.0 * decode_read / b,
                    b / 1e9
                )?,
                None => writeln!(o, " (--membw: as a fraction of measured bandwidth)")?,
            }
        }
    }
    Ok(())
}

/// Seconds as "1.23 s" / "45 ms" for status lines.
pub fn short(d: Duration) -> String {
    if d >= Duration::from_secs(1) {
        format!("{:.2} s", d.as_secs_f64())
    } else {
        format!("{} ms", d.as_millis())
    }
}
