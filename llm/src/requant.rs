//! Requantization: rewrites a GGUF model with its weight matrices in another block format,
//! as `llama-quantize --pure --allow-requantize` does. Metadata (tokenizer included) is
//! copied unchanged except `general.file_type` (set for the new format) and
//! `general.alignment` (dropped: the writer aligns to the default 32 bytes). Every tensor whose
//! name ends in `weight` and that has two or more dimensions (the matrices, `token_embd` and
//! `output` included, so the format is exercised by the embedding lookup and the logits too)
//! is dequantized and quantized to the target; one-dimensional tensors (norms, biases) are
//! copied as they are (F32 stays F32). A matrix already in its chosen format is copied
//! bit-for-bit. The output depends only on the input and the options (single pass, GGML's
//! reference quantizers: each converted tensor has the bytes `ggml_quantize_chunk` gives for
//! the same values without an importance matrix), so the same input always gives the same file.
//!
//! K-quant rows must be whole 256-element super-blocks; SmolLM2 (width 576) and Qwen2.5-0.5B
//! (896) have only `ffn_down` rows that are. Such rows are an error unless a fallback format is
//! given (llama.cpp's quantize falls back the same way: [`Target::llama_fallback`]).

use std::io::Write;

use pocket_kernels::DType;
use pocket_kernels::quant::{dequantize_row, quantize_bytes};

use crate::LlmError;
use crate::gguf::{GgufFile, MetaValue, TensorInfo};
use crate::gguf_writer::GgufWriter;

/// A format models can be requantized to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub dtype: DType,
    /// llama.cpp's `general.file_type` for a file mostly in this format (`LLAMA_FTYPE_*`;
    /// the K-quants use the `_S` variant, the closest to one format throughout).
    pub file_type: u32,
    /// What llama.cpp's quantize writes for rows that are not whole blocks of this format.
    pub llama_fallback: Option<DType>,
}

/// Every format [`requantize`] writes. A new format with a quantizer in
/// `pocket_kernels::quant::quantize_bytes` giving GGML's bytes is one more line here.
pub const TARGETS: &[Target] = &[
    Target::new(DType::Q4_0, 2, None),
    Target::new(DType::Q4_1, 3, None),
    Target::new(DType::Q5_0, 8, None),
    Target::new(DType::Q5_1, 9, None),
    Target::new(DType::Q8_0, 7, None),
    Target::new(DType::Q4_K, 14, Some(DType::Q5_0)),
    Target::new(DType::Q5_K, 16, Some(DType::Q5_1)),
    Target::new(DType::Q6_K, 18, Some(DType::Q8_0)),
];

impl Target {
    pub const fn new(dtype: DType, file_type: u32, llama_fallback: Option<DType>) -> Target {
        Target {
            dtype,
            file_type,
            llama_fallback,
        }
    }

    /// The target named as llama.cpp prints formats, case-insensitive (`q4_0`, `q4_k`, ...).
    pub fn from_name(name: &str) -> Option<Target> {
        TARGETS
            .iter()
            .copied()
            .find(|t| t.dtype.name().eq_ignore_ascii_case(name))
    }

    /// The names [`Target::from_name`] accepts, for messages.
    pub fn names() -> String {
        let v: Vec<String> = TARGETS
            .iter()
            .map(|t| t.dtype.name().to_ascii_lowercase())
            .collect();
        v.join(", ")
    }
}

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequantOptions {
    pub target: Target,
    /// Format for matrices whose rows are not whole blocks of the target (None: an error).
    pub fallback: Option<Target>,
}

/// What happened to each tensor, in file order: (name, format read, format written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequantReport {
    pub tensors: Vec<(String, DType, DType)>,
    pub bytes: u64,
}

impl RequantReport {
    /// Tensors written in each format: (format, count), in first-seen order.
    pub fn counts(&self) -> Vec<(DType, usize)> {
        let mut v: Vec<(DType, usize)> = Vec::new();
        for &(_, _, d) in &self.tensors {
            match v.iter_mut().find(|(t, _)| *t == d) {
                Some(e) => e.1 += 1,
                None => v.push((d, 1)),
            }
        }
        v
    }
}

fn requant_error(t: &TensorInfo, reason: String) -> LlmError {
    LlmError::Requant {
        tensor: t.name().to_string(),
        reason,
    }
}

/// The format tensor `t` (stored as `src`) is written in.
fn plan(t: &TensorInfo, src: DType, opts: &RequantOptions) -> Result<DType, LlmError> {
    if t.dims().len() < 2 || !t.name().ends_with("weight") {
        return Ok(src);
    }
    let cols = t.dims()[0] as usize;
    let fits = |d: DType| cols.is_multiple_of(d.block_len());
    let want = opts.target.dtype;
    if fits(want) {
        return Ok(want);
    }
    match opts.fallback {
        Some(f) if fits(f.dtype) => Ok(f.dtype),
        Some(f) => Err(requant_error(
            t,
            format!(
                "rows of {cols} are whole blocks of neither {} ({}) nor the fallback {} ({})",
                want.name(),
                want.block_len(),
                f.dtype.name(),
                f.dtype.block_len()
            ),
        )),
        None => Err(requant_error(
            t,
            format!(
                "rows of {cols} are not whole {}-element blocks of {}; a fallback format is needed{}",
                want.block_len(),
                want.name(),
                opts.target
                    .llama_fallback
                    .map(|d| format!(" (llama.cpp's quantize uses {})", d.name()))
                    .unwrap_or_default()
            ),
        )),
    }
}

/// Elements converted per batch (bounds the f32 buffer to 4 MiB).
const BATCH: usize = 1 << 20;

/// `data` (tensor `t`, format `from`) in format `to`.
fn convert(t: &TensorInfo, data: &[u8], from: DType, to: DType) -> Result<Vec<u8>, LlmError> {
    if from == to {
        return Ok(data.to_vec());
    }
    let cols = t.dims()[0] as usize;
    let in_row = from
        .row_bytes(cols)
        .ok_or_else(|| requant_error(t, format!("rows of {cols} in {}", from.name())))?;
    let rows_per_batch = (BATCH / cols.max(1)).max(1);
    let mut out = Vec::with_capacity(to.row_bytes(cols).unwrap_or(0) * data.len() / in_row.max(1));
    let mut buf = Vec::new();
    for chunk in data.chunks(in_row * rows_per_batch) {
        buf.clear();
        buf.resize(chunk.len() / in_row * cols, 0.0);
        for (row, o) in chunk.chunks_exact(in_row).zip(buf.chunks_exact_mut(cols)) {
            dequantize_row(from, row, o)?;
        }
        out.extend_from_slice(&quantize_bytes(to, &buf)?);
    }
    Ok(out)
}

/// Writes `src` with its weight matrices in `opts.target` to `out`. Every tensor is checked
/// before the first byte is written: an unsupported input format or a row length the target
/// cannot hold (and no fallback can) is an error naming the tensor.
pub fn requantize<W: Write>(
    src: &GgufFile,
    opts: &RequantOptions,
    out: &mut W,
) -> Result<RequantReport, LlmError> {
    let mut w = GgufWriter::new();
    for (k, v) in src.metadata().iter() {
        if k != "general.alignment" {
            w.meta(k, v.clone());
        }
    }
    w.meta("general.file_type", MetaValue::U32(opts.target.file_type));
    let mut tensors = Vec::with_capacity(src.tensors().len());
    for t in src.tensors() {
        let ty = t.ggml_type();
        let from = DType::from_ggml_id(ty.id()).ok_or_else(|| {
            requant_error(
                t,
                format!("its format {} cannot be read by pocket", ty.name()),
            )
        })?;
        let to = plan(t, from, opts)?;
        w.tensor(t.name(), t.dims(), to)?;
        tensors.push((t.name().to_string(), from, to));
    }
    let infos = src.tensors();
    let bytes = w.write(out, |i, spec| {
        convert(
            &infos[i],
            src.tensor_data(&infos[i]),
            tensors[i].1,
            spec.dtype,
        )
    })?;
    Ok(RequantReport { tensors, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::{SynthQuant, SynthShape, synth_bytes};
    use crate::{LoadOptions, Model};

    fn tiny() -> GgufFile {
        let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q8_0, 3).expect("synth");
        GgufFile::from_bytes(bytes).expect("gguf")
    }

    fn opts(target: &str, fallback: Option<&str>) -> RequantOptions {
        RequantOptions {
            target: Target::from_name(target).expect("target"),
            fallback: fallback.map(|f| Target::from_name(f).expect("fallback")),
        }
    }

    #[test]
    fn every_target_writes_a_loadable_deterministic_file() {
        let src = tiny();
        for t in TARGETS {
            let name = t.dtype.name();
            // Width 128: K-quant rows need the fallback; the FFN's 256-wide rows do not.
            let o = opts(name, t.llama_fallback.map(|d| d.name()));
            let mut a = Vec::new();
            let report = requantize(&src, &o, &mut a).expect(name);
            let mut b = Vec::new();
            requantize(&src, &o, &mut b).expect(name);
            assert!(a == b, "{name}: same input, same bytes");
            assert_eq!(report.bytes, a.len() as u64);
            let f = GgufFile::from_bytes(a).expect("read back");
            assert_eq!(
                f.get::<u32>("general.file_type").expect("ftype"),
                t.file_type
            );
            assert_eq!(
                f.get::<&[String]>("tokenizer.ggml.tokens").expect("tokens"),
                src.get::<&[String]>("tokenizer.ggml.tokens")
                    .expect("tokens")
            );
            for (info, (n, _, to)) in f.tensors().iter().zip(&report.tensors) {
                assert_eq!(info.name(), n);
                assert_eq!(info.ggml_type().id(), to.ggml_id(), "{n}");
                if info.dims().len() == 1 {
                    assert_eq!(*to, DType::F32, "{n}: norms stay F32");
                    assert_eq!(
                        f.tensor_bytes(n).expect("norm").1,
                        src.tensor_bytes(n).expect("norm").1
                    );
                }
            }
            let down = f.tensor("blk.0.ffn_down.weight").expect("down");
            assert_eq!(down.ggml_type().id(), t.dtype.ggml_id(), "{name}");
            let q = f.tensor("blk.0.attn_q.weight").expect("q");
            assert_eq!(
                q.ggml_type().id(),
                t.llama_fallback.unwrap_or(t.dtype).ggml_id()
            );
            Model::from_gguf(f, LoadOptions::default()).expect("loads");
        }
    }

    #[test]
    fn weights_survive_the_round_trip() {
        let src = tiny();
        let mut bytes = Vec::new();
        requantize(&src, &opts("q8_0", None), &mut bytes).expect("q8_0");
        let f = GgufFile::from_bytes(bytes).expect("read back");
        // Q8_0 to Q8_0 is a copy.
        assert_eq!(
            f.tensor_bytes("blk.1.ffn_up.weight").expect("up").1,
            src.tensor_bytes("blk.1.ffn_up.weight").expect("up").1
        );
        let mut bytes = Vec::new();
        requantize(&src, &opts("q6_k", Some("q8_0")), &mut bytes).expect("q6_k");
        let f = GgufFile::from_bytes(bytes).expect("read back");
        let row = |f: &GgufFile, d: DType| {
            let (_, b) = f.tensor_bytes("blk.1.ffn_down.weight").expect("down");
            let mut v = vec![0.0; 256];
            dequantize_row(d, &b[..d.row_bytes(256).expect("row")], &mut v).expect("deq");
            v
        };
        let (a, b) = (row(&src, DType::Q8_0), row(&f, DType::Q6_K));
        let scale = a.iter().fold(0f32, |m, v| m.max(v.abs()));
        let err = a
            .iter()
            .zip(&b)
            .fold(0f32, |m, (x, y)| m.max((x - y).abs()));
        assert!(err < scale / 16.0, "max error {err} of {scale}");
        assert!(err > 0.0, "Q6_K is not Q8_0: the values were requantized");
    }

    #[test]
    fn rows_that_do_not_fit_are_a_clear_error() {
        let src = tiny();
        let e = requantize(&src, &opts("q4_k", None), &mut Vec::new())
            .expect_err("128-wide rows in Q4_K")
            .to_string();
        assert!(
            e.contains("token_embd.weight") && e.contains("128") && e.contains("q5_0"),
            "{e}"
        );
    }

    #[test]
    fn unreadable_input_formats_are_a_clear_error() {
        // Relabel one Q4_0 matrix as IQ4_NL (id 20, also 18 bytes per 32 values): the file
        // still parses, but pocket cannot dequantize it.
        let mut bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q4_0, 3).expect("synth");
        let name = b"blk.1.attn_v.weight";
        let at = bytes
            .windows(name.len())
            .position(|w| w == name)
            .expect("tensor info")
            + name.len();
        // n_dims (u32), two u64 dims, then the type id.
        let ty = at + 4 + 16;
        assert_eq!(bytes[ty..ty + 4], 2u32.to_le_bytes());
        bytes[ty..ty + 4].copy_from_slice(&20u32.to_le_bytes());
        let src = GgufFile::from_bytes(bytes).expect("still a valid GGUF");
        let e = requantize(&src, &opts("q8_0", None), &mut Vec::new())
            .expect_err("IQ4_NL input")
            .to_string();
        assert!(
            e.contains("blk.1.attn_v.weight") && e.contains("iq4_nl"),
            "{e}"
        );
    }
}
