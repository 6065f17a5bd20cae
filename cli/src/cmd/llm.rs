//! `pocket llm`: benchmark the LLM engine (`bench`), write random-weight models of a given
//! shape (`synth`) and rewrite a model in another weight format (`requant`).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use pocket_llm::gguf::GgufFile;
use pocket_llm::requant::{RequantOptions, Target, requantize};
use pocket_llm::synth::{SynthQuant, SynthShape, write_synth};
use pocket_llm::{Model, Session, SessionOptions};

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
    let (threads, best) = read_bandwidth(a.threads, a.mib)?;
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

/// Best of 5 passes of all threads summing disjoint parts of a `mib` MiB buffer: (threads,
/// bytes per second).
fn read_bandwidth(threads: usize, mib: usize) -> Result<(usize, f64)> {
    let words = membw_words(mib)?;
    let buf: Vec<u64> = (0..words as u64).collect();
    let pool = pocket_llm::kernels::ThreadPool::new(threads)?;
    let threads = pool.threads();
    let part = words / threads;
    let mut best = 0f64;
    for _ in 0..5 {
        let t = Instant::now();
        let sums: Vec<std::sync::atomic::AtomicU64> =
            (0..threads).map(|_| Default::default()).collect();
        let counter = pocket_llm::kernels::ChunkCounter::new(threads, 1);
        pool.run(|_| {
            while let Some(r) = counter.next() {
                for i in r {
                    let s = buf[i * part..(i + 1) * part]
                        .iter()
                        .fold(0u64, |acc, &v| acc.wrapping_add(v));
                    sums[i].store(s, std::sync::atomic::Ordering::Relaxed);
                }
            }
        })?;
        std::hint::black_box(&sums);
        best = best.max((part * threads * 8) as f64 / t.elapsed().as_secs_f64());
    }
    Ok((threads, best))
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

/// Mean and sample standard deviation.
fn stats(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

/// Peak resident memory of this process (VmHWM), in bytes.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Deterministic token ids spread over the vocabulary (llama-bench also runs random ids).
fn tokens(n: usize, vocab: usize, salt: u64) -> Vec<u32> {
    let mut x = 0x2545_F491_4F6C_DD1Du64 ^ salt;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % vocab as u64) as u32
        })
        .collect()
}

fn bench(a: BenchArgs) -> Result<()> {
    let path = model_path(a.model)?;
    let t = Instant::now();
    let model = Model::load(&path).with_context(|| format!("cannot load {}", path.display()))?;
    let load = t.elapsed();
    let vocab = model.config().vocab_size;
    let need = (a.prompt + a.gen_tokens).max(1);
    let ctx = a.ctx.unwrap_or(need).max(need);
    let mut s = Session::new(
        model.clone(),
        SessionOptions {
            context: ctx,
            threads: a.threads,
            batch: a.prompt.clamp(1, 512),
        },
    )?;
    if a.fill_ctx {
        let fill = tokens(s.capacity(), vocab, 99);
        s.prefill(&fill)?;
        s.clear();
    }
    let mut pp = Vec::new();
    let mut tg = Vec::new();
    for rep in 0..=a.reps {
        if a.prompt > 0 {
            let toks = tokens(a.prompt, vocab, rep as u64);
            s.clear();
            let t = Instant::now();
            s.prefill(&toks)?;
            if rep > 0 {
                pp.push(a.prompt as f64 / t.elapsed().as_secs_f64());
            }
        }
        if a.gen_tokens > 0 {
            let toks = tokens(a.gen_tokens, vocab, 1000 + rep as u64);
            s.clear();
            let t = Instant::now();
            for &tok in &toks {
                s.decode(tok)?;
            }
            if rep > 0 {
                tg.push(a.gen_tokens as f64 / t.elapsed().as_secs_f64());
            }
        }
    }
    let (pp_mean, pp_sd) = stats(&pp);
    let (tg_mean, tg_sd) = stats(&tg);
    let rss = peak_rss();
    let weights = model.weight_bytes_per_token();
    // Decode streams every weight once per token: bytes read per second.
    let decode_read = tg_mean * weights as f64;
    let bw = if a.membw {
        Some(read_bandwidth(s.threads(), 512)?.1)
    } else {
        None
    };
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    if a.json {
        let j = serde_json::json!({
            "model": name,
            "path": path,
            "arch": model.config().arch.name(),
            "threads": s.threads(),
            "context": s.capacity(),
            "kv_cache_bytes": s.kv_bytes(),
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
            "decode_membw_fraction": bw.map(|b| decode_read / b),
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
            s.threads(),
            s.capacity(),
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
            s.kv_bytes() as f64 / 1e6,
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

/// Largest `membw` buffer, in MiB (16 GiB).
const MAX_MEMBW_MIB: usize = 16 << 10;

/// 64-bit words in a buffer of `mib` MiB (1 to [`MAX_MEMBW_MIB`]).
fn membw_words(mib: usize) -> Result<usize> {
    if !(1..=MAX_MEMBW_MIB).contains(&mib) {
        anyhow::bail!("--mib {mib} is outside 1..={MAX_MEMBW_MIB}");
    }
    mib.checked_mul((1 << 20) / 8)
        .context("--mib overflows this machine's address space")
}

/// Seconds as "1.23 s" / "45 ms" for status lines.
pub fn short(d: Duration) -> String {
    if d >= Duration::from_secs(1) {
        format!("{:.2} s", d.as_secs_f64())
    } else {
        format!("{} ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_a_sample() {
        let (m, sd) = stats(&[1.0, 2.0, 3.0]);
        assert!((m - 2.0).abs() < 1e-12 && (sd - 1.0).abs() < 1e-12);
        assert_eq!(tokens(5, 10, 1), tokens(5, 10, 1));
        assert!(tokens(100, 10, 2).iter().all(|&t| t < 10));
    }

    #[test]
    fn membw_buffer_size_is_checked() {
        assert_eq!(membw_words(512).expect("512 MiB"), 64 << 20);
        for mib in [0, usize::MAX, usize::MAX / (1 << 20) + 1, 1 << 40] {
            let r = std::panic::catch_unwind(|| membw_words(mib));
            assert!(matches!(r, Ok(Err(_))), "--mib {mib} must be a clear error");
        }
    }
}
