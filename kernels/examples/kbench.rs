//! Micro-benchmark of the matmul kernels (not a test): GMAC/s for decode (n=1) and prefill
//! (n=128) on a few weight shapes (or `KBENCH_SHAPE=ROWSxCOLS`).
//! `cargo run --release -p pocket-kernels --example kbench [threads] [format]`

use std::time::Instant;

use pocket_kernels::quant::quantize_bytes;
use pocket_kernels::{DType, MatmulScratch, ThreadPool, Weights, matmul};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let threads: usize = std::env::args().nth(1).map_or(Ok(2), |s| s.parse())?;
    let filter = std::env::args().nth(2).unwrap_or_default();
    let pool = ThreadPool::new(threads)?;
    let mut scratch = MatmulScratch::new();
    println!("isa {:?}, {threads} threads", scratch.isa());
    let mut shapes = vec![
        (DType::Q4_1, 1536, 576),
        (DType::Q4_1, 576, 1536),
        (DType::Q4_1, 2560, 896),
        (DType::Q8_0, 49152, 576),
        (DType::Q4_1, 65536, 896),
        (DType::F16, 1536, 384),
    ];
    // KBENCH_SHAPE=ROWSxCOLS adds one more shape in each format above.
    if let Some((r, c)) = std::env::var("KBENCH_SHAPE")
        .ok()
        .and_then(|s| s.split_once('x').map(|(r, c)| (r.parse(), c.parse())))
        .and_then(|(r, c)| Some((r.ok()?, c.ok()?)))
    {
        shapes = [DType::Q4_0, DType::Q4_1, DType::Q8_0, DType::F16]
            .into_iter()
            .map(|d| (d, r, c))
            .collect();
    }
    for (dtype, rows, cols) in shapes {
        if !filter.is_empty() && !dtype.name().contains(&filter) {
            continue;
        }
        let w: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0)
            .collect();
        let bytes = quantize_bytes(dtype, &w)?;
        let plain = Weights::new(dtype, rows, cols, &bytes)?;
        let packed = plain.repacked();
        let mut variants = vec![("rows", plain)];
        if let Some(p) = &packed {
            variants.push(("x8", Weights::x8(dtype, rows, cols, p.as_slice())?));
        }
        for (label, wv) in variants {
            for n in [1usize, 128] {
                if std::env::var("KBENCH_N").is_ok_and(|v| v != n.to_string()) {
                    continue;
                }
                let x: Vec<f32> = (0..n * cols)
                    .map(|i| ((i * 31) % 200) as f32 / 100.0 - 1.0)
                    .collect();
                let mut out = vec![0.0; n * rows];
                matmul(&pool, &wv, &x, n, &mut out, &mut scratch)?;
                let reps = ((std::env::var("KBENCH_MACS")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(3e10)
                    / (rows * cols * n) as f64) as usize)
                    .max(3);
                // Best call: on a busy machine the other calls include time the threads were
                // not running (KBENCH_CPU=1: mean CPU time per thread instead).
                let c = cpu_seconds();
                let mut best = f64::INFINITY;
                for _ in 0..reps {
                    let t = Instant::now();
                    matmul(&pool, &wv, &x, n, &mut out, &mut scratch)?;
                    best = best.min(t.elapsed().as_secs_f64());
                }
                let cpu = (cpu_seconds() - c) / reps as f64 / threads as f64;
                let dt = if std::env::var_os("KBENCH_CPU").is_some() {
                    cpu.max(1e-9)
                } else {
                    best
                };
                let macs = (rows * cols * n) as f64;
                println!(
                    "{:5} {label:4} {rows:6}x{cols:5} n={n:4}: {:8.1} us  {:6.2} GMAC/s  {:6.2} GB/s weights",
                    dtype.name(),
                    dt * 1e6,
                    macs / dt / 1e9,
                    bytes.len() as f64 / dt / 1e9
                );
            }
        }
    }
    Ok(())
}

/// CPU seconds used by this process so far (user + system), from /proc (Linux).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}
