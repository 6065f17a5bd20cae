//! Pocket Voice LLM engine: GGUF models (llama, qwen2, qwen3) on memmap2 with quantized SIMD
//! kernels, an f16 KV cache, a byte-level BPE tokenizer and streaming generation. Synchronous:
//! every method runs on the caller's thread (the matmuls on the kernels' thread pool).
//!
//! Where things are:
//! - [`gguf`]: the file reader; [`gguf_writer`], [`requant`] and [`synth`] write GGUF files.
//! - [`tokenizer`], [`chat`] (prompt formats, `<think>` filter), [`sampler`].
//! - [`Model::load`] (`model/`: config, tensor binding, the forward pass), [`Session`] (one
//!   KV cache: prefill, decode, truncate), [`generate`] (sample → decode → stream, with
//!   drafts from the context checked in one pass: [`draft_from_context`]).
//! - [`ChatSession`]: a conversation over a session, with its history policy, as the voice loop
//!   uses it.
//! - [`bench`]: prefill/decode speed, peak memory and memory read bandwidth.
//!
//! docs/ARCHITECTURE.md, "LLM engine front end" and "LLM engine core", says how each works.

mod error;
pub use error::LlmError;

pub mod chat;
pub mod gguf;
pub mod sampler;
pub mod tokenizer;

pub mod config;
mod kv;
mod model;
mod session;
mod text_score;

pub use config::{Arch, ModelConfig, RopeStyle};
pub use model::{LoadOptions, Model};
pub use session::{Session, SessionOptions};
pub use text_score::{TextLogProb, TextScorer};
mod chat_session;
mod draft;
mod generate;

pub use chat_session::{ChatSession, ReplyOutcome, ReplyTimings, SessionConfig};
pub use draft::draft_from_context;
pub use generate::{Drafts, Generated, StopReason, TextStream, generate};
pub mod bench;
pub mod gguf_writer;
pub mod requant;
pub mod synth;

/// The compute kernels this engine runs on (thread pool, matmul), for tools built on it.
pub use pocket_kernels as kernels;
