//! Random-weight models of a given shape, written with the crate's own GGUF writer and
//! quantizers: MNN-Pocket-0.3B's exact shape and metadata (its weights cannot be fetched, its
//! timings and memory can be measured this way) and a tiny qwen3 for tests. Deterministic for
//! a seed.

mod vocab;

use std::io::Write;

use pocket_kernels::DType;
use pocket_kernels::quant::quantize_bytes;
use pocket_stats::Rng;

use crate::LlmError;
use crate::gguf::{MetaArray, MetaValue};
use crate::gguf_writer::{GgufWriter, TensorSpec};

/// Model shapes `pocket llm synth` can write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynthShape {
    /// MNN-Pocket-0.3B: qwen3, 28 layers, width 896, FFN 2560, 14/2 heads of 64, vocab
    /// 65,536, context 40,960, tied embeddings.
    MnnPocket03b,
    /// A 2-layer qwen3 (width 128, 4/2 heads of 32, vocab 1,024) for tests.
    TinyQwen3,
}

impl SynthShape {
    pub fn from_name(s: &str) -> Option<SynthShape> {
        match s {
            "mnn-pocket-0.3b" => Some(SynthShape::MnnPocket03b),
            "tiny-qwen3" => Some(SynthShape::TinyQwen3),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SynthShape::MnnPocket03b => "mnn-pocket-0.3b",
            SynthShape::TinyQwen3 => "tiny-qwen3",
        }
    }

    fn dims(self) -> Dims {
        match self {
            SynthShape::MnnPocket03b => Dims {
                layers: 28,
                d: 896,
                ffn: 2560,
                heads: 14,
                kv_heads: 2,
                head_dim: 64,
                vocab: 65_536,
                ctx: 40_960,
            },
            SynthShape::TinyQwen3 => Dims {
                layers: 2,
                d: 128,
                ffn: 256,
                heads: 4,
                kv_heads: 2,
                head_dim: 32,
                vocab: 1024,
                ctx: 4096,
            },
        }
    }
}

/// Weight formats `pocket llm synth` can write (norms are always F32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynthQuant {
    Q4_1,
    Q4_0,
    Q5_0,
    Q5_1,
    /// Q5_K where a matrix's rows are whole 256-element super-blocks, else Q5_1 (as
    /// llama.cpp's quantizer falls back for such tensors).
    Q5K,
    Q8_0,
    F16,
}

impl SynthQuant {
    pub fn from_name(s: &str) -> Option<SynthQuant> {
        match s {
            "q4_1" => Some(SynthQuant::Q4_1),
            "q4_0" => Some(SynthQuant::Q4_0),
            "q5_0" => Some(SynthQuant::Q5_0),
            "q5_1" => Some(SynthQuant::Q5_1),
            "q5_k" | "q5_K" => Some(SynthQuant::Q5K),
            "q8_0" => Some(SynthQuant::Q8_0),
            "f16" => Some(SynthQuant::F16),
            _ => None,
        }
    }

    /// The format of a matrix with rows of `cols` elements.
    fn dtype(self, cols: u64) -> DType {
        match self {
            SynthQuant::Q4_1 => DType::Q4_1,
            SynthQuant::Q4_0 => DType::Q4_0,
            SynthQuant::Q5_0 => DType::Q5_0,
            SynthQuant::Q5_1 => DType::Q5_1,
            SynthQuant::Q5K if cols.is_multiple_of(256) => DType::Q5_K,
            SynthQuant::Q5K => DType::Q5_1,
            SynthQuant::Q8_0 => DType::Q8_0,
            SynthQuant::F16 => DType::F16,
        }
    }

    /// llama.cpp's `general.file_type` for a file mostly in this format.
    fn file_type(self) -> u32 {
        match self {
            SynthQuant::F16 => 1,
            SynthQuant::Q4_0 => 2,
            SynthQuant::Q4_1 => 3,
            SynthQuant::Q8_0 => 7,
            SynthQuant::Q5_0 => 8,
            SynthQuant::Q5_1 => 9,
            // Q5_K_S: no Q6_K mix.
            SynthQuant::Q5K => 16,
        }
    }
}

struct Dims {
    layers: usize,
    d: usize,
    ffn: usize,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    vocab: usize,
    ctx: usize,
}

/// Special tokens sit at the end of the vocabulary, at MNN-Pocket's ids for its size
/// (pad 65,510, `<|im_start|>` 65,511, eos `<|im_end|>` 65,512, `<think>`, `</think>`).
const SPECIALS: usize = 26;

/// A ChatML template with Qwen3's thinking switch (written for these files).
const CHAT_TEMPLATE: &str = "{%- for message in messages %}{{- '<|im_start|>' + message['role'] + '\\n' + \
message['content'] + '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}\
{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}\
{%- endif %}";

/// The writer for a random model of `shape` in `quant`: metadata and tensor specs.
fn writer(shape: SynthShape, quant: SynthQuant, seed: u64) -> Result<GgufWriter, LlmError> {
    let m = shape.dims();
    let mut w = GgufWriter::new();
    let s = |v: &str| MetaValue::String(v.to_string());
    let u = |v: usize| MetaValue::U32(v as u32);
    w.meta("general.architecture", s("qwen3"))
        .meta("general.type", s("model"))
        .meta(
            "general.name",
            s(&format!("{} random weights (seed {seed})", shape.name())),
        )
        .meta("general.file_type", MetaValue::U32(quant.file_type()))
        .meta("general.quantization_version", MetaValue::U32(2))
        .meta("qwen3.block_count", u(m.layers))
        .meta("qwen3.context_length", u(m.ctx))
        .meta("qwen3.embedding_length", u(m.d))
        .meta("qwen3.feed_forward_length", u(m.ffn))
        .meta("qwen3.attention.head_count", u(m.heads))
        .meta("qwen3.attention.head_count_kv", u(m.kv_heads))
        .meta("qwen3.attention.key_length", u(m.head_dim))
        .meta("qwen3.attention.value_length", u(m.head_dim))
        .meta("qwen3.rope.freq_base", MetaValue::F32(1_000_000.0))
        .meta(
            "qwen3.attention.layer_norm_rms_epsilon",
            MetaValue::F32(1e-6),
        );
    let n_normal = m.vocab - SPECIALS;
    let (mut tokens, merges) = vocab::build(n_normal, seed);
    let mut types = vec![1i32; n_normal];
    let pad = n_normal;
    for (i, name) in [
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "<think>",
        "</think>",
    ]
    .iter()
    .enumerate()
    {
        tokens.push(name.to_string());
        types.push(if i >= 3 { 4 } else { 3 });
    }
    for i in tokens.len()..m.vocab {
        tokens.push(format!("<|reserved_special_{}|>", i - pad));
        types.push(3);
    }
    w.meta("tokenizer.ggml.model", s("gpt2"))
        .meta("tokenizer.ggml.pre", s("qwen2"))
        .meta(
            "tokenizer.ggml.tokens",
            MetaValue::Array(MetaArray::String(tokens)),
        )
        .meta(
            "tokenizer.ggml.token_type",
            MetaValue::Array(MetaArray::I32(types)),
        )
        .meta(
            "tokenizer.ggml.merges",
            MetaValue::Array(MetaArray::String(merges)),
        )
        .meta("tokenizer.ggml.eos_token_id", u(pad + 2))
        .meta("tokenizer.ggml.padding_token_id", u(pad))
        .meta("tokenizer.ggml.bos_token_id", u(pad))
        .meta("tokenizer.ggml.add_bos_token", MetaValue::Bool(false))
        .meta("tokenizer.chat_template", s(CHAT_TEMPLATE));
    let wq = |cols: u64| quant.dtype(cols);
    let (d, q, kv, f, hd) = (
        m.d as u64,
        (m.heads * m.head_dim) as u64,
        (m.kv_heads * m.head_dim) as u64,
        m.ffn as u64,
        m.head_dim as u64,
    );
    w.tensor("token_embd.weight", &[d, m.vocab as u64], wq(d))?;
    w.tensor("output_norm.weight", &[d], DType::F32)?;
    for l in 0..m.layers {
        let n = |t: &str| format!("blk.{l}.{t}");
        w.tensor(&n("attn_norm.weight"), &[d], DType::F32)?;
        w.tensor(&n("attn_q.weight"), &[d, q], wq(d))?;
        w.tensor(&n("attn_k.weight"), &[d, kv], wq(d))?;
        w.tensor(&n("attn_v.weight"), &[d, kv], wq(d))?;
        w.tensor(&n("attn_q_norm.weight"), &[hd], DType::F32)?;
        w.tensor(&n("attn_k_norm.weight"), &[hd], DType::F32)?;
        w.tensor(&n("attn_output.weight"), &[q, d], wq(q))?;
        w.tensor(&n("ffn_norm.weight"), &[d], DType::F32)?;
        w.tensor(&n("ffn_gate.weight"), &[d, f], wq(d))?;
        w.tensor(&n("ffn_up.weight"), &[d, f], wq(d))?;
        w.tensor(&n("ffn_down.weight"), &[f, d], wq(f))?;
    }
    Ok(w)
}

/// Deterministic random values for tensor `index`: norm weights near 1, matrices uniform with
/// a standard deviation of 0.02 (embeddings) or 1/sqrt(inputs), rows quantized in batches.
fn tensor_data(seed: u64, index: usize, t: &TensorSpec) -> Result<Vec<u8>, LlmError> {
    let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (index as u64 + 1));
    let cols = t.dims[0] as usize;
    let rows: usize = t.dims.iter().skip(1).product::<u64>() as usize;
    let norm = t.dims.len() == 1;
    let std = if norm {
        0.1
    } else if t.name.starts_with("token_embd") {
        0.02 * 25.0
    } else {
        1.0 / (cols as f32).sqrt()
    };
    let half_width = std * 3f32.sqrt();
    let mut out = Vec::with_capacity(t.n_bytes().unwrap_or(0) as usize);
    let rows_per_batch = (1 << 20) / cols.max(1) + 1;
    let mut buf = Vec::new();
    let mut r = 0;
    while r < rows.max(1) {
        let n = rows_per_batch.min(rows.max(1) - r);
        buf.clear();
        buf.extend((0..n * cols).map(|_| {
            let v = rng.uniform() * half_width;
            if norm { 1.0 + v } else { v }
        }));
        out.extend_from_slice(&quantize_bytes(t.dtype, &buf)?);
        r += n;
    }
    Ok(out)
}

/// Writes a random model of `shape` in `quant` to `out`; returns the bytes written.
pub fn write_synth<W: Write>(
    out: &mut W,
    shape: SynthShape,
    quant: SynthQuant,
    seed: u64,
) -> Result<u64, LlmError> {
    let w = writer(shape, quant, seed)?;
    w.write(out, |i, t| tensor_data(seed, i, t))
}

/// A random model in memory (tests).
pub fn synth_bytes(shape: SynthShape, quant: SynthQuant, seed: u64) -> Result<Vec<u8>, LlmError> {
    let mut v = Vec::new();
    write_synth(&mut v, shape, quant, seed)?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gguf::GgufFile;
    use crate::{LoadOptions, Model, Session, SessionOptions};

    /// The tiny model with `edit` applied to its writer, then loaded.
    fn load_edited(edit: impl FnOnce(&mut GgufWriter)) -> Result<std::sync::Arc<Model>, LlmError> {
        let mut w = writer(SynthShape::TinyQwen3, SynthQuant::Q8_0, 5).expect("writer");
        edit(&mut w);
        let mut bytes = Vec::new();
        w.write(&mut bytes, |i, t| {
            let mut d = tensor_data(5, i, t)?;
            d.resize(t.n_bytes().unwrap_or(0) as usize, 0);
            Ok(d)
        })?;
        Model::from_gguf(GgufFile::from_bytes(bytes)?, LoadOptions::default())
    }

    #[test]
    fn broken_models_are_errors_not_panics() {
        let reason = |r: Result<std::sync::Arc<Model>, LlmError>| match r {
            Ok(_) => panic!("a broken model loaded"),
            Err(e) => e.to_string(),
        };
        assert!(load_edited(|_| {}).is_ok());
        let e = reason(load_edited(|w| {
            w.tensors_mut().retain(|t| t.name != "blk.1.ffn_up.weight")
        }));
        assert!(e.contains("blk.1.ffn_up.weight"), "{e}");
        let e = reason(load_edited(|w| {
            let t = w
                .tensors_mut()
                .iter_mut()
                .find(|t| t.name == "blk.0.attn_k.weight")
                .expect("k");
            t.dims.reverse();
        }));
        assert!(
            e.contains("blk.0.attn_k.weight") && e.contains("shape"),
            "{e}"
        );
        let e = reason(load_edited(|w| {
            let t = w
                .tensors_mut()
                .iter_mut()
                .find(|t| t.name == "blk.0.attn_norm.weight")
                .expect("norm");
            t.dims = vec![64];
        }));
        assert!(e.contains("attn_norm"), "{e}");
        let e = reason(load_edited(|w| {
            w.tensors_mut()
                .retain(|t| t.name != "blk.0.attn_q_norm.weight")
        }));
        assert!(e.contains("attn_q_norm"), "qwen3 needs Q norms: {e}");
        let e = reason(load_edited(|w| {
            w.meta("general.architecture", MetaValue::String("gpt2".into()));
        }));
        assert!(e.contains("gpt2"), "{e}");
        let e = reason(load_edited(|w| {
            w.meta("qwen3.attention.head_count_kv", MetaValue::U32(3));
        }));
        assert!(e.contains("KV heads") || e.contains("shape"), "{e}");
        let e = reason(load_edited(|w| {
            w.meta("qwen3.block_count", MetaValue::U32(3));
        }));
        assert!(e.contains("blk.2"), "{e}");
        let e = reason(load_edited(|w| {
            w.meta("qwen3.embedding_length", MetaValue::U32(0));
        }));
        assert!(e.contains("zero"), "{e}");
        // Truncated files.
        let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q4_1, 5).expect("synth");
        for cut in [10, 1000, bytes.len() / 2, bytes.len() - 1] {
            let r = GgufFile::from_bytes(bytes[..cut].to_vec())
                .and_then(|f| Model::from_gguf(f, LoadOptions::default()));
            assert!(r.is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn q5_models_load_and_the_interleaved_kernels_agree_with_row_major() {
        use crate::gguf::GgmlType;
        let probe = [0u8; 8 * 24];
        let wants_x8 = pocket_kernels::Weights::new(DType::Q5_1, 8, 32, &probe)
            .expect("probe")
            .wants_repack();
        for (quant, k_tensors) in [(SynthQuant::Q5_1, 0), (SynthQuant::Q5K, 2)] {
            let bytes = synth_bytes(SynthShape::TinyQwen3, quant, 3).expect("synth");
            let file = GgufFile::from_bytes(bytes.clone()).expect("gguf");
            // Only ffn_down has rows of 256 (a whole super-block) in the tiny shape.
            let n_k = file
                .tensors()
                .iter()
                .filter(|t| t.ggml_type() == GgmlType::Q5K)
                .count();
            assert_eq!(n_k, k_tensors, "{quant:?}");
            let logits = |repack: bool| {
                let f = GgufFile::from_bytes(bytes.clone()).expect("gguf");
                let opts = LoadOptions {
                    repack,
                    ..LoadOptions::default()
                };
                let model = Model::from_gguf(f, opts).expect("model");
                assert_eq!(model.repacked_matrices() > 0, repack && wants_x8);
                let opts = SessionOptions {
                    context: 32,
                    threads: 2,
                    batch: 8,
                };
                let mut s = Session::new(model, opts).expect("session");
                s.prefill(&[5, 17, 300, 42, 7]).expect("prefill").to_vec()
            };
            let (a, b) = (logits(true), logits(false));
            let mag = a.iter().fold(0f32, |m, v| m.max(v.abs()));
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() <= 1e-3 * mag, "{quant:?}: {x} vs {y}");
            }
        }
    }

    #[test]
    fn tiny_qwen3_loads_and_runs() {
        let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q4_1, 7).expect("synth");
        assert_eq!(
            bytes,
            synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q4_1, 7).expect("again"),
            "deterministic"
        );
        let model = Model::from_gguf(
            GgufFile::from_bytes(bytes).expect("gguf"),
            LoadOptions::default(),
        )
        .expect("model");
        let c = model.config();
        assert_eq!(
            (c.n_layers, c.d_model, c.n_heads, c.n_kv_heads, c.head_dim),
            (2, 128, 4, 2, 32)
        );
        assert!(model.tied_embeddings());
        let tok = model.tokenizer();
        assert_eq!(tok.eos(), Some(1024 - 26 + 2));
        let ids = tok.encode("The quick brown fox", false);
        assert!(ids.len() < 15, "learned merges shorten text: {ids:?}");
        let mut s = Session::new(
            model.clone(),
            SessionOptions {
                context: 64,
                threads: 2,
                batch: 8,
            },
        )
        .expect("session");
        let logits = s.prefill(&ids).expect("prefill");
        assert!(logits.iter().all(|v| v.is_finite()));
        assert!(logits.iter().any(|&v| v != logits[0]));
    }
}
