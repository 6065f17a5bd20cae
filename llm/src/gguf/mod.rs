//! GGUF v2/v3 reader on a read-only memory map: typed metadata, tensor table, zero-copy
//! tensor data. Every offset, size and count is checked against the file, so a truncated,
//! corrupt or hostile file gives `LlmError::Gguf` instead of a panic or a huge allocation.
//!
//! ```no_run
//! # fn main() -> Result<(), pocket_llm::LlmError> {
//! use pocket_llm::gguf::GgufFile;
//! let f = GgufFile::open("model.gguf")?;
//! let n_layers: u32 = f.get_arch("block_count")?;
//! let (info, bytes) = f.tensor_bytes("token_embd.weight")?;
//! println!("{n_layers} layers, {} is {} {:?}, {} bytes", info.name(), info.ggml_type(), info.dims(), bytes.len());
//! # Ok(()) }
//! ```

mod error;
mod file;
mod ggml_type;
mod metadata;
mod parse;
mod tensor;
mod value;

#[cfg(test)]
mod tests;

pub use error::GgufError;
pub use file::GgufFile;
pub use ggml_type::{GgmlType, QK_K};
pub use metadata::Metadata;
pub use parse::{DEFAULT_ALIGNMENT, GGUF_MAGIC, MAX_ARRAY_DEPTH, MAX_DIMS};
pub use tensor::TensorInfo;
pub use value::{FromMeta, MetaArray, MetaType, MetaValue, encode_str};
