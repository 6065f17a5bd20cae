//! The speed benchmark: one warm-up and `reps` timed repetitions of a prefill of `prompt`
//! tokens and a decode of `gen_tokens` tokens on one session, with mean and spread, the KV
//! cache's size, peak resident memory and the weights decode reads per second.

use std::sync::Arc;
use std::time::Instant;

use super::membw::read_bandwidth;
use crate::{LlmError, Model, Session, SessionOptions};

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchOptions {
    /// Prompt tokens run as one prefill (0: skip).
    pub prompt: usize,
    /// Tokens generated one by one (0: skip).
    pub gen_tokens: usize,
    /// Compute threads.
    pub threads: usize,
    /// KV cache size (`None`: just what the test needs, as llama-bench).
    pub ctx: Option<usize>,
    /// Timed repetitions (after one warm-up).
    pub reps: usize,
    /// Fill the whole context once before measuring (peak memory with a full KV cache).
    pub fill_ctx: bool,
    /// Also measure memory read bandwidth (512 MiB, the session's threads).
    pub membw: bool,
}

/// What a run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchReport {
    pub threads: usize,
    pub context: usize,
    pub kv_cache_bytes: usize,
    /// Prefill tokens per second: mean and sample standard deviation over the repetitions.
    pub prefill_tok_s: (f64, f64),
    /// Decode tokens per second: mean and sample standard deviation.
    pub decode_tok_s: (f64, f64),
    pub weight_bytes_per_token: u64,
    /// Decode streams every weight once per token: bytes read per second.
    pub decode_read_bytes_per_s: f64,
    /// Measured read bandwidth, with [`BenchOptions::membw`].
    pub membw_read_bytes_per_s: Option<f64>,
    /// Peak resident memory of the process (Linux), taken before the bandwidth buffer.
    pub peak_rss_bytes: Option<u64>,
}

impl BenchReport {
    /// Decode's weight reads as a fraction of the measured bandwidth.
    pub fn decode_membw_fraction(&self) -> Option<f64> {
        self.membw_read_bytes_per_s
            .map(|b| self.decode_read_bytes_per_s / b)
    }
}

/// Runs the benchmark on `model`.
pub fn run(model: &Arc<Model>, a: &BenchOptions) -> Result<BenchReport, LlmError> {
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
    let decode_tok_s = stats(&tg);
    let peak_rss_bytes = peak_rss();
    let weights = model.weight_bytes_per_token();
    let membw_read_bytes_per_s = if a.membw {
        Some(read_bandwidth(s.threads(), 512)?.read_bytes_per_s)
    } else {
        None
    };
    Ok(BenchReport {
        threads: s.threads(),
        context: s.capacity(),
        kv_cache_bytes: s.kv_bytes(),
        prefill_tok_s: stats(&pp),
        decode_tok_s,
        weight_bytes_per_token: weights,
        decode_read_bytes_per_s: decode_tok_s.0 * weights as f64,
        membw_read_bytes_per_s,
        peak_rss_bytes,
    })
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
}
