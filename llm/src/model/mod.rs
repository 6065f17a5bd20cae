//! A loaded model: validated config, tokenizer and immutable weights. Matrices this CPU has
//! faster kernels for are repacked once at load into an interleaved layout; the others are
//! copied as they are (`detach`, the default) or used in place in the file mapping. Both
//! reads use `pread`, so the mapping's pages are never touched and resident memory does not
//! hold two copies. A detached model never reads its file again: truncating or rewriting
//! the file while it runs cannot fault the process (SIGBUS on a mapped page past the end).

mod forward;
mod load;

pub(crate) use forward::{EACH_MAX, Logits, RunState, forward};

use std::path::Path;
use std::sync::Arc;

use pocket_kernels::repack::PackedBytes;
use pocket_kernels::{DType, Weights};

use crate::LlmError;
use crate::config::ModelConfig;
use crate::gguf::GgufFile;
use crate::tokenizer::Tokenizer;

/// A weight matrix: where its bytes are and its shape (`rows` outputs x `cols` inputs).
#[derive(Clone, Debug)]
pub(crate) struct Mat {
    pub dtype: DType,
    pub rows: usize,
    pub cols: usize,
    src: Src,
}

#[derive(Clone, Debug)]
enum Src {
    /// Byte range of the file (GGML row-major layout).
    File(std::ops::Range<usize>),
    /// Index into `Model::packed` (interleaved layout).
    Packed(usize),
    /// Index into `Model::packed` (a copy in GGML row-major layout).
    Copied(usize),
    /// Byte range of the file, read a row at a time with `pread` through `Model::rows_reader`
    /// (an untied token embedding: a lookup table, one row a token, never a matrix product).
    Rows(std::ops::Range<usize>),
}

/// Longest embedding row [`Src::Rows`] reads (on the stack): 8192 F32 values.
const MAX_ROW_BYTES: usize = 32 * 1024;

/// One transformer block. Shapes in (rows x cols) = (outputs x inputs).
#[derive(Debug)]
pub(crate) struct Layer {
    /// [d_model]
    pub attn_norm: Vec<f32>,
    /// [q_dim x d_model]
    pub wq: Mat,
    /// [kv_dim x d_model]
    pub wk: Mat,
    /// [kv_dim x d_model]
    pub wv: Mat,
    /// [q_dim], [kv_dim], [kv_dim] (qwen2)
    pub bq: Option<Vec<f32>>,
    pub bk: Option<Vec<f32>>,
    pub bv: Option<Vec<f32>>,
    /// [head_dim] each (qwen3)
    pub q_norm: Option<Vec<f32>>,
    pub k_norm: Option<Vec<f32>>,
    /// [d_model x q_dim]
    pub wo: Mat,
    /// [d_model]
    pub ffn_norm: Vec<f32>,
    /// [ffn_dim x d_model]
    pub w_gate: Mat,
    /// [ffn_dim x d_model]
    pub w_up: Mat,
    /// [d_model x ffn_dim]
    pub w_down: Mat,
}

/// An immutable, shareable model. Sessions hold an `Arc<Model>`.
pub struct Model {
    file: GgufFile,
    config: ModelConfig,
    tokenizer: Tokenizer,
    /// [vocab x d_model]
    pub(crate) token_embd: Mat,
    /// [vocab x d_model]; the same tensor as `token_embd` when embeddings are tied.
    pub(crate) output: Mat,
    /// [d_model]
    pub(crate) output_norm: Vec<f32>,
    pub(crate) layers: Vec<Layer>,
    packed: Vec<PackedBytes>,
    /// The file, open for the rows of a [`Src::Rows`] matrix.
    rows_reader: Option<std::fs::File>,
    tied: bool,
    /// The token id of each row of `output` when it holds only some of the vocabulary
    /// ([`LoadOptions::speakable_only`]); `None` when row `i` is token `i`.
    pub(crate) output_ids: Option<Vec<u32>>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("path", &self.file.path())
            .field("config", &self.config)
            .field("tied", &self.tied)
            .field("matrices_in_memory", &self.packed.len())
            .finish()
    }
}

/// How to load a model.
#[derive(Clone, Copy, Debug)]
pub struct LoadOptions {
    /// Repack matrices into the interleaved layout when this CPU has kernels for it
    /// (faster; off = every matrix used in place from the file mapping).
    pub repack: bool,
    /// Copy the matrices not repacked out of the file mapping and close it, so the model
    /// never reads the file after loading (a file truncated or replaced in place while the
    /// model runs would otherwise crash the process). Costs no resident memory in use: a
    /// decode step reads every weight, so the mapped pages would be resident anyway; it
    /// does cost reading them at load and lets the kernel no longer drop them under pressure.
    pub detach: bool,
    /// Compute logits only for the tokens a voice can say ([`Tokenizer::speakable_ids`]);
    /// the others get `-inf`, so they are never produced. The output projection keeps only
    /// those rows: for Qwen2.5's 151,936 tokens about a third fewer, less memory and fewer
    /// bytes read per decoded token. Only for an untied projection held in memory (a tied one
    /// is also the embedding table, which needs every row).
    pub speakable_only: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            repack: true,
            detach: true,
            speakable_only: false,
        }
    }
}

impl Model {
    /// Maps, validates and prepares the GGUF model at `path`.
    pub fn load(path: &Path) -> Result<Arc<Model>, LlmError> {
        Model::load_with(path, LoadOptions::default())
    }

    /// [`Model::load`] with options.
    pub fn load_with(path: &Path, opts: LoadOptions) -> Result<Arc<Model>, LlmError> {
        Ok(Arc::new(load::from_file(GgufFile::open(path)?, opts)?))
    }

    /// A model from an already opened GGUF file (e.g. one written to memory by
    /// [`crate::gguf_writer`]).
    pub fn from_gguf(file: GgufFile, opts: LoadOptions) -> Result<Arc<Model>, LlmError> {
        Ok(Arc::new(load::from_file(file, opts)?))
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// The GGUF file the model lives in.
    pub fn gguf(&self) -> &GgufFile {
        &self.file
    }

    /// The chat template stored in the file (`tokenizer.chat_template`), if any.
    pub fn chat_template(&self) -> Option<&str> {
        self.file
            .get_opt::<&str>("tokenizer.chat_template")
            .ok()
            .flatten()
    }

    /// How many tokens the model can produce (the rows of the output projection).
    pub fn output_tokens(&self) -> usize {
        // Ascending ids; the last may repeat to fill a group of 8 rows.
        self.output_ids
            .as_ref()
            .map_or(self.config.vocab_size, |ids| {
                1 + ids.windows(2).filter(|w| w[0] != w[1]).count()
            })
    }

    /// Whether the output projection reuses the token embeddings.
    pub fn tied_embeddings(&self) -> bool {
        self.tied
    }

    /// Weight bytes one decode step reads: every layer matrix plus the output projection
    /// (the embedding lookup reads one row). For bandwidth estimates.
    pub fn weight_bytes_per_token(&self) -> u64 {
        let mat = |m: &Mat| m.dtype.matrix_bytes(m.rows, m.cols).unwrap_or(0) as u64;
        let layers: u64 = self
            .layers
            .iter()
            .map(|l| {
                mat(&l.wq)
                    + mat(&l.wk)
                    + mat(&l.wv)
                    + mat(&l.wo)
                    + mat(&l.w_gate)
                    + mat(&l.w_up)
                    + mat(&l.w_down)
            })
            .sum();
        layers + mat(&self.output)
    }

    /// Number of matrices held in the interleaved layout.
    pub fn repacked_matrices(&self) -> usize {
        self.packed.len()
    }

    /// The kernel view of a matrix.
    pub(crate) fn weights(&self, m: &Mat) -> Result<Weights<'_>, LlmError> {
        Ok(match &m.src {
            Src::File(r) => Weights::new(m.dtype, m.rows, m.cols, &self.file.bytes()[r.clone()])?,
            Src::Packed(i) => Weights::x8(m.dtype, m.rows, m.cols, self.packed[*i].as_slice())?,
            Src::Copied(i) => Weights::new(m.dtype, m.rows, m.cols, self.packed[*i].as_slice())?,
            Src::Rows(_) => {
                return Err(LlmError::InvalidModel {
                    reason: "a matrix read a row at a time cannot be multiplied".into(),
                });
            }
        })
    }

    /// Writes the embedding of `token` into `out` (`d_model` values).
    pub(crate) fn embed(&self, token: u32, out: &mut [f32]) -> Result<(), LlmError> {
        if token as usize >= self.config.vocab_size {
            return Err(LlmError::InvalidToken {
                id: token,
                vocab_size: self.config.vocab_size,
            });
        }
        if let Src::Rows(range) = &self.token_embd.src {
            return self.embed_from_file(range.start, token as usize, out);
        }
        self.weights(&self.token_embd)?
            .dequantize_row(token as usize, out)?;
        Ok(())
    }

    /// [`embed`](Self::embed) from a table left in the file: one `pread` of the row (a file
    /// shrunk meanwhile gives an error, never a fault), dequantized.
    fn embed_from_file(&self, start: usize, token: usize, out: &mut [f32]) -> Result<(), LlmError> {
        let m = &self.token_embd;
        let row = m.dtype.row_bytes(m.cols).filter(|&n| n <= MAX_ROW_BYTES);
        let (Some(row), Some(reader)) = (row, self.rows_reader.as_ref()) else {
            return Err(LlmError::InvalidModel {
                reason: "token embedding rows cannot be read from the file".into(),
            });
        };
        let mut buf = [0u8; MAX_ROW_BYTES];
        let buf = &mut buf[..row];
        load::read_row(reader, self.file.path(), start + token * row, buf)?;
        Weights::new(m.dtype, 1, m.cols, buf)?.dequantize_row(0, out)?;
        Ok(())
    }
}
