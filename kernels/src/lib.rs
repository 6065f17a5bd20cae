//! Pocket Voice compute kernels, shared by the LLM and ASR engines.
//!
//! * [`quant`]: GGML block formats (`#[repr(C)]`, size-checked): F32, F16, BF16, Q8_0, Q4_0,
//!   Q4_1, Q5_0, Q4_K, Q6_K, plus the 8-bit activation blocks; scalar dequantizers and
//!   quantizers ([`quant::quantize_bytes`] for F32/F16/BF16/Q8_0/Q4_0/Q4_1/Q5_0).
//! * [`ThreadPool`]: persistent workers, one broadcast closure per job, no spawn per op.
//! * [`matmul`] / [`matmul_many`]: `out (n x rows) = x (n x cols) · Wᵀ` for a weight
//!   matrix in any supported format. Quantized formats take 8-bit activations and integer dot
//!   products; float formats take f32 activations. `n = 1` is the decode matrix-vector case;
//!   larger `n` is tiled so each weight block is loaded once per group of tokens.
//! * [`attn`]: GQA attention of one query group over an f16 KV cache (keys transposed).
//! * [`vec`]: f16 dot / axpy (attention over an f16 KV cache), SiLU gating, exp for softmax.
//! * Kernels are picked at run time ([`Isa::detect`]): AVX2+FMA+F16C (+ AVX-512 VNNI, + AMX-INT8
//!   for K-quant prefill) on x86-64, NEON / NEON+dotprod on aarch64, portable scalar code
//!   otherwise. Every SIMD kernel has a scalar twin and a parity test.
//!
//! Stable API for other crates (keep it):
//! ```no_run
//! use pocket_kernels::{DType, MatmulScratch, ThreadPool, Weights, matmul};
//! # fn demo(bytes: &[u8], x: &[f32]) -> Result<(), pocket_kernels::KernelError> {
//! let pool = ThreadPool::new(2)?;                    // once per engine
//! let mut scratch = MatmulScratch::new();            // once per engine / session
//! let w = Weights::new(DType::F16, 384, 1536, bytes)?; // 384 outputs of 1536 inputs
//! let n = x.len() / 1536;                            // tokens / frames
//! let mut out = vec![0.0; n * 384];
//! matmul(&pool, &w, x, n, &mut out, &mut scratch)?;  // out[t*384 + r]
//! # Ok(()) }
//! ```

// Kernels index several arrays with one counter; iterator chains would hide the layout.
#![allow(clippy::needless_range_loop)]

pub mod attn;
mod dtype;
mod error;
mod isa;
mod matmul;
mod pool;
pub mod quant;
mod region;
pub mod repack;
mod tile;
pub mod vec;

pub use dtype::{ActKind, DType};
pub use error::KernelError;
pub use isa::Isa;
pub use matmul::{MAX_JOBS, MatmulJob, MatmulScratch, Weights, matmul, matmul_many};
pub use pool::{ChunkCounter, ThreadPool};
