//! Micro-benchmark of the decode memory stream (not a test): one token through one large Q4_0
//! matrix vs the same number of bytes as a sequence of decode-sized matrices (each its own
//! `matmul` call, as a forward pass makes them), alternating per round so both see the same
//! host. The gap between the two is the per-call cost (stream restarts, dispatch).
//! `cargo run --release -p pocket-kernels --example kstream [threads] [rows per matrix]`

use std::time::Instant;

use pocket_kernels::quant::quantize_bytes;
use pocket_kernels::repack::PackedArena;
use pocket_kernels::{DType, MatmulScratch, ThreadPool, Weights, matmul};

const COLS: usize = 896;
const TOTAL_ROWS: usize = 262_144;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let threads: usize = std::env::args().nth(1).map_or(Ok(2), |s| s.parse())?;
    let rows: usize = std::env::args().nth(2).map_or(Ok(896), |s| s.parse())?;
    let dtype = DType::Q4_0;
    let pool = ThreadPool::new(threads)?;
    let mut scratch = MatmulScratch::new();
    let values = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    };
    let count = TOTAL_ROWS / rows;
    let one_bytes = quantize_bytes(dtype, &values(rows * COLS))?;
    let one = Weights::new(dtype, rows, COLS, &one_bytes)?
        .repacked()
        .ok_or("no x8 layout")?;
    // Sequential in huge-page slabs, as a loaded model's matrices are.
    let mut arena = PackedArena::new();
    let small = (0..count)
        .map(|_| {
            arena.alloc_with(one.as_slice().len(), |b| {
                b.copy_from_slice(one.as_slice());
                Ok::<_, std::convert::Infallible>(())
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let big_bytes = quantize_bytes(dtype, &values(TOTAL_ROWS * COLS))?;
    let big = Weights::new(dtype, TOTAL_ROWS, COLS, &big_bytes)?
        .repacked()
        .ok_or("no x8 layout")?;
    let big_w = Weights::x8(dtype, TOTAL_ROWS, COLS, big.as_slice())?;
    let x = values(COLS);
    let mut out = vec![0.0; TOTAL_ROWS];
    let gb = big.as_slice().len() as f64 / 1e9;
    println!(
        "isa {:?}, {threads} threads, {count} matrices of {rows}x{COLS}",
        scratch.isa()
    );
    for round in 0..6 {
        let t = Instant::now();
        matmul(&pool, &big_w, &x, 1, &mut out, &mut scratch)?;
        let t_big = t.elapsed().as_secs_f64();
        let t = Instant::now();
        for (i, p) in small.iter().enumerate() {
            let w = Weights::x8(dtype, rows, COLS, p.as_slice())?;
            matmul(
                &pool,
                &w,
                &x,
                1,
                &mut out[i * rows..(i + 1) * rows],
                &mut scratch,
            )?;
        }
        let t_seq = t.elapsed().as_secs_f64();
        println!(
            "round {round}: one matrix {:5.1} GB/s, in {count} calls {:5.1} GB/s ({:3.0}%, {:.2} us per call)",
            gb / t_big,
            gb / t_seq,
            100.0 * t_big / t_seq,
            t_seq * 1e6 / count as f64
        );
    }
    Ok(())
}
