//! Binds GGUF tensors to the model's fields, checking every name, shape and format against
//! the config, and repacks matrices for the interleaved kernels.

use std::fs::File;

use pocket_kernels::{DType, Weights};

use super::{Layer, LoadOptions, Mat, Model, Src};
use crate::LlmError;
use crate::config::{Arch, ModelConfig};
use crate::gguf::GgufFile;
use crate::tokenizer::Tokenizer;

pub(super) fn from_file(mut file: GgufFile, opts: LoadOptions) -> Result<Model, LlmError> {
    let config = ModelConfig::from_gguf(&file)?;
    let tokenizer = Tokenizer::from_gguf(&file)?;
    if tokenizer.vocab_size() != config.vocab_size {
        return Err(invalid(format!(
            "tokenizer has {} tokens, the model {}",
            tokenizer.vocab_size(),
            config.vocab_size
        )));
    }
    let mut b = Binder {
        file: &file,
        opts,
        detach: opts.detach && file.is_mapped(),
        reader: None,
        arena: pocket_kernels::repack::PackedArena::new(),
        packed: Vec::new(),
    };
    let (d, v) = (config.d_model, config.vocab_size);
    let tied = file.tensor("output.weight").is_none();
    let token_embd = if tied {
        b.mat("token_embd.weight", v, d)?
    } else {
        b.lookup_table("token_embd.weight", v, d)?
    };
    let (output, output_ids) = if tied {
        (token_embd.clone(), None)
    } else if opts.speakable_only {
        b.some_rows("output.weight", v, d, tokenizer.speakable_ids())?
    } else {
        (b.mat("output.weight", v, d)?, None)
    };
    let output_norm = b.vector("output_norm.weight", d)?;
    let mut layers = Vec::with_capacity(config.n_layers);
    for i in 0..config.n_layers {
        layers.push(b.layer(&config, i)?);
    }
    let packed = b.packed;
    let rows_reader = matches!(token_embd.src, Src::Rows(_))
        .then(|| b.reader.take())
        .flatten();
    if b.detach {
        // Every matrix is in memory now: the model never reads the file again.
        file.detach();
    }
    // The tokenizer holds the vocabulary now (the chat template reads its end text there).
    file.forget_vocabulary();
    Ok(Model {
        file,
        config,
        tokenizer,
        token_embd,
        output,
        output_norm,
        layers,
        packed,
        rows_reader,
        tied,
        output_ids,
    })
}

/// Reads the rows `ids` (`row` bytes each) of the matrix at file offset `base` into `buf`,
/// whole rows, one `pread` per run of consecutive ids.
#[cfg(unix)]
fn read_rows(f: &File, base: u64, row: usize, ids: &[u32], buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let n = buf.len() / row;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && ids[j] == ids[j - 1] + 1 {
            j += 1;
        }
        f.read_exact_at(
            &mut buf[i * row..j * row],
            base + u64::from(ids[i]) * row as u64,
        )?;
        i = j;
    }
    Ok(())
}

/// Reads `buf.len()` bytes of the model file at `start` through `reader` (`path` names it in
/// the error: a file shrunk or unreadable since the load is an error, never a fault).
pub(super) fn read_row(
    reader: &File,
    path: &std::path::Path,
    start: usize,
    buf: &mut [u8],
) -> Result<(), LlmError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        reader
            .read_exact_at(buf, start as u64)
            .map_err(|source| LlmError::Io {
                path: path.to_path_buf(),
                source,
            })
    }
    #[cfg(not(unix))]
    {
        let _ = (reader, start, buf);
        Err(LlmError::InvalidModel {
            reason: format!("{}: rows cannot be read on this platform", path.display()),
        })
    }
}

/// Where `data`, a slice of `file`'s bytes, lies in the file (`0..0` when empty).
fn file_range(file: &GgufFile, data: &[u8]) -> std::ops::Range<usize> {
    if data.is_empty() {
        return 0..0;
    }
    let start = data.as_ptr() as usize - file.bytes().as_ptr() as usize;
    start..start + data.len()
}

/// Fills `buf` with `file`'s bytes from `start`: with `pread` through `reader` where there is
/// one (a read error, e.g. a file shrunk meanwhile, is an error, never a fault), else copied
/// from the mapping.
fn read_at(
    file: &GgufFile,
    reader: Option<&File>,
    start: usize,
    buf: &mut [u8],
) -> Result<(), LlmError> {
    #[cfg(unix)]
    if let Some(f) = reader {
        use std::os::unix::fs::FileExt;
        return f
            .read_exact_at(buf, start as u64)
            .map_err(|source| LlmError::Io {
                path: file.path().to_path_buf(),
                source,
            });
    }
    let _ = reader;
    buf.copy_from_slice(&file.bytes()[start..start + buf.len()]);
    Ok(())
}

fn invalid(reason: String) -> LlmError {
    LlmError::InvalidModel { reason }
}

struct Binder<'f> {
    file: &'f GgufFile,
    opts: LoadOptions,
    /// Copy matrices out of the mapping (see `LoadOptions::detach`).
    detach: bool,
    /// The file opened for `pread` (repacking reads bytes without faulting in the mapping).
    reader: Option<File>,
    /// Memory for the repacked matrices (shared huge-page slabs).
    arena: pocket_kernels::repack::PackedArena,
    packed: Vec<pocket_kernels::repack::PackedBytes>,
}

impl<'f> Binder<'f> {
    fn layer(&mut self, c: &ModelConfig, i: usize) -> Result<Layer, LlmError> {
        let n = |s: &str| format!("blk.{i}.{s}");
        let (d, q, kv, f, hd) = (c.d_model, c.q_dim(), c.kv_dim(), c.ffn_dim, c.head_dim);
        let qwen2 = c.arch == Arch::Qwen2;
        let qwen3 = c.arch == Arch::Qwen3;
        Ok(Layer {
            attn_norm: self.vector(&n("attn_norm.weight"), d)?,
            wq: self.mat(&n("attn_q.weight"), q, d)?,
            wk: self.mat(&n("attn_k.weight"), kv, d)?,
            wv: self.mat(&n("attn_v.weight"), kv, d)?,
            bq: self.opt_vector(&n("attn_q.bias"), q, qwen2)?,
            bk: self.opt_vector(&n("attn_k.bias"), kv, qwen2)?,
            bv: self.opt_vector(&n("attn_v.bias"), kv, qwen2)?,
            q_norm: self.opt_vector(&n("attn_q_norm.weight"), hd, qwen3)?,
            k_norm: self.opt_vector(&n("attn_k_norm.weight"), hd, qwen3)?,
            wo: self.mat(&n("attn_output.weight"), d, q)?,
            ffn_norm: self.vector(&n("ffn_norm.weight"), d)?,
            w_gate: self.mat(&n("ffn_gate.weight"), f, d)?,
            w_up: self.mat(&n("ffn_up.weight"), f, d)?,
            w_down: self.mat(&n("ffn_down.weight"), d, f)?,
        })
    }

    /// A 2-D matrix of `rows` outputs x `cols` inputs (GGUF dims `[cols, rows]`).
    fn mat(&mut self, name: &str, rows: usize, cols: usize) -> Result<Mat, LlmError> {
        let (dtype, data) = self.matrix_bytes(name, rows, cols)?;
        // Validates the byte count against the shape and format.
        let w = Weights::new(dtype, rows, cols, data)?;
        let range = file_range(self.file, data);
        if self.opts.repack
            && let Some(packed) = self.repacked(&w, range.clone())?
        {
            self.packed.push(packed);
            return Ok(Mat {
                dtype,
                rows,
                cols,
                src: Src::Packed(self.packed.len() - 1),
            });
        }
        if self.detach {
            let copy = self.copied(range)?;
            self.packed.push(copy);
            return Ok(Mat {
                dtype,
                rows,
                cols,
                src: Src::Copied(self.packed.len() - 1),
            });
        }
        Ok(Mat {
            dtype,
            rows,
            cols,
            src: Src::File(range),
        })
    }

    /// Only the rows `ids` (ascending token ids) of matrix `name`, in memory: repacked where
    /// this CPU's kernels want it, else copied (`detach`). Where neither applies, or the file
    /// cannot be reopened for `pread`, the whole matrix as [`Binder::mat`] gives it (`None`:
    /// row `i` is token `i`).
    fn some_rows(
        &mut self,
        name: &str,
        rows: usize,
        cols: usize,
        mut ids: Vec<u32>,
    ) -> Result<(Mat, Option<Vec<u32>>), LlmError> {
        let (dtype, data) = self.matrix_bytes(name, rows, cols)?;
        let w = Weights::new(dtype, rows, cols, data)?;
        let repack = self.opts.repack && w.wants_repack();
        let row = dtype.row_bytes(cols).unwrap_or(0);
        // The tokenizer's vocabulary is the model's (checked at load): every id is a row.
        let fewer = !ids.is_empty() && ids.len() < rows;
        self.open_reader();
        #[cfg(unix)]
        if let Some(f) = self
            .reader
            .as_ref()
            .filter(|_| fewer && row > 0 && (repack || self.detach))
        {
            // Whole groups of 8 rows for the interleaved kernels: the last id repeats.
            let last = ids[ids.len() - 1];
            ids.resize(ids.len().next_multiple_of(8), last);
            let n = ids.len();
            let base = file_range(self.file, data).start as u64;
            let src = if repack {
                let packed = pocket_kernels::repack::repack_x8_from_in(
                    &mut self.arena,
                    dtype,
                    n,
                    cols,
                    |at, buf| read_rows(f, base, row, &ids[at as usize / row..], buf),
                )?;
                self.packed.push(packed);
                Src::Packed(self.packed.len() - 1)
            } else {
                let path = self.file.path();
                let copy = self.arena.alloc_with(n * row, |buf| {
                    read_rows(f, base, row, &ids, buf).map_err(|source| LlmError::Io {
                        path: path.to_path_buf(),
                        source,
                    })
                })?;
                self.packed.push(copy);
                Src::Copied(self.packed.len() - 1)
            };
            let mat = Mat {
                dtype,
                rows: n,
                cols,
                src,
            };
            return Ok((mat, Some(ids)));
        }
        #[cfg(not(unix))]
        let _ = (&mut ids, repack, row, fewer);
        Ok((self.mat(name, rows, cols)?, None))
    }

    /// Tensor `name`'s format and bytes, checked to be a `rows` x `cols` matrix (GGUF dims
    /// `[cols, rows]`) in a format the kernels compute with.
    fn matrix_bytes(
        &self,
        name: &str,
        rows: usize,
        cols: usize,
    ) -> Result<(DType, &'f [u8]), LlmError> {
        let info = self.file.require_tensor(name)?;
        let dims = info.dims();
        if dims.len() != 2 || dims[0] != cols as u64 || dims[1] != rows as u64 {
            return Err(invalid(format!(
                "{name} has shape {dims:?}, expected [{cols}, {rows}]"
            )));
        }
        let dtype = DType::from_ggml_id(info.ggml_type().id()).ok_or_else(|| {
            invalid(format!(
                "{name} is {}, which this engine cannot compute with",
                info.ggml_type().name()
            ))
        })?;
        let data = self.file.tensor_data(info);
        Ok((dtype, data))
    }

    /// A lookup table (an untied token embedding): one row is read per token, so when the model
    /// detaches from its mapping the table stays in the file and rows are read with `pread`
    /// (`Model::embed`) instead of being copied into memory: Qwen2.5-Coder-1.5B's is 131 MB of
    /// its 1.1 GB, and a conversation touches a few thousand rows. Elsewhere, a matrix as any.
    fn lookup_table(&mut self, name: &str, rows: usize, cols: usize) -> Result<Mat, LlmError> {
        if !(cfg!(unix) && self.detach) {
            return self.mat(name, rows, cols);
        }
        self.open_reader();
        let (dtype, data) = self.matrix_bytes(name, rows, cols)?;
        Weights::new(dtype, rows, cols, data)?;
        let fits = dtype
            .row_bytes(cols)
            .is_some_and(|n| n <= super::MAX_ROW_BYTES);
        if self.reader.is_none() || !fits {
            return self.mat(name, rows, cols);
        }
        Ok(Mat {
            dtype,
            rows,
            cols,
            src: Src::Rows(file_range(self.file, data)),
        })
    }

    /// A copy of the file's bytes `range` in the arena ([`read_at`]).
    fn copied(
        &mut self,
        range: std::ops::Range<usize>,
    ) -> Result<pocket_kernels::repack::PackedBytes, LlmError> {
        self.open_reader();
        let (file, reader) = (self.file, self.reader.as_ref());
        self.arena
            .alloc_with(range.len(), |buf| read_at(file, reader, range.start, buf))
    }

    /// Opens the file for `pread` on first use (stays `None` where it cannot be reopened).
    fn open_reader(&mut self) {
        if self.reader.is_none() {
            self.reader = File::open(self.file.path()).ok();
        }
    }

    /// The interleaved copy of `w` if this CPU's kernels want one. Bytes are read with
    /// `pread`, a few hundred rows at a time, when the file can be reopened, so neither the
    /// mapping's pages nor a whole-matrix buffer add to resident memory.
    fn repacked(
        &mut self,
        w: &Weights<'_>,
        range: std::ops::Range<usize>,
    ) -> Result<Option<pocket_kernels::repack::PackedBytes>, LlmError> {
        if !w.wants_repack() {
            return Ok(None);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.open_reader();
            if let Some(f) = &self.reader {
                let base = range.start as u64;
                let packed = pocket_kernels::repack::repack_x8_from_in(
                    &mut self.arena,
                    w.dtype(),
                    w.rows(),
                    w.cols(),
                    |at, buf| f.read_exact_at(buf, base + at),
                )?;
                return Ok(Some(packed));
            }
        }
        let _ = range;
        Ok(w.repacked())
    }

    /// A copy of `data`, a slice of the mapping ([`read_at`]). A model that detaches reads no byte through the mapping: touching even a
    /// few bytes there maps the whole page-cache folio they sit in (up to 2 MB on kernels
    /// with large folios), so reading the ~100 norm vectors through it added ~100 MB of file
    /// pages to peak RSS while loading (MNN-Pocket shape, Q8_0: 442 MB peak, 345 MB after).
    fn read_small(&mut self, data: &[u8]) -> Result<Vec<u8>, LlmError> {
        self.open_reader();
        let mut buf = vec![0u8; data.len()];
        read_at(
            self.file,
            self.reader.as_ref(),
            file_range(self.file, data).start,
            &mut buf,
        )?;
        Ok(buf)
    }

    /// A 1-D tensor of `len` float values, widened to f32.
    fn vector(&mut self, name: &str, len: usize) -> Result<Vec<f32>, LlmError> {
        let info = self.file.require_tensor(name)?;
        if info.dims() != [len as u64] {
            return Err(invalid(format!(
                "{name} has shape {:?}, expected [{len}]",
                info.dims()
            )));
        }
        let dtype = DType::from_ggml_id(info.ggml_type().id())
            .filter(|d| !d.is_quantized())
            .ok_or_else(|| {
                invalid(format!(
                    "{name} is {}, expected a float format",
                    info.ggml_type().name()
                ))
            })?;
        let data = self.file.tensor_data(info);
        let read;
        let bytes = if self.detach {
            read = self.read_small(data)?;
            read.as_slice()
        } else {
            data
        };
        let mut out = vec![0.0; len];
        pocket_kernels::quant::dequantize_row(dtype, bytes, &mut out)?;
        if out.iter().any(|v| !v.is_finite()) {
            return Err(invalid(format!("{name} holds non-finite values")));
        }
        Ok(out)
    }

    /// A vector that the architecture requires (`required`) or may have.
    fn opt_vector(
        &mut self,
        name: &str,
        len: usize,
        required: bool,
    ) -> Result<Option<Vec<f32>>, LlmError> {
        if required || self.file.tensor(name).is_some() {
            self.vector(name, len).map(Some)
        } else {
            Ok(None)
        }
    }
}
