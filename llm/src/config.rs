//! Model hyper-parameters read from GGUF metadata once, typed and validated, so the forward
//! pass never re-checks them.

use crate::LlmError;
use crate::gguf::GgufFile;

/// Supported decoder architectures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// Llama / SmolLM: RMSNorm, SwiGLU, GQA, rotary on adjacent pairs.
    Llama,
    /// Qwen2 / Qwen2.5: as Llama plus Q/K/V biases, rotary on split halves (NeoX).
    Qwen2,
    /// Qwen3 (MNN-Pocket): as Llama plus per-head RMSNorm of Q and K, NeoX rotary.
    Qwen3,
}

impl Arch {
    /// The `general.architecture` name.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Llama => "llama",
            Arch::Qwen2 => "qwen2",
            Arch::Qwen3 => "qwen3",
        }
    }

    pub fn from_name(name: &str) -> Option<Arch> {
        match name {
            "llama" => Some(Arch::Llama),
            "qwen2" => Some(Arch::Qwen2),
            "qwen3" => Some(Arch::Qwen3),
            _ => None,
        }
    }

    /// How this architecture pairs dimensions for rotary embeddings (llama.cpp's
    /// `llama_model_rope_type`).
    pub fn rope_style(self) -> RopeStyle {
        match self {
            Arch::Llama => RopeStyle::Adjacent,
            Arch::Qwen2 | Arch::Qwen3 => RopeStyle::Neox,
        }
    }
}

/// Rotary embedding variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RopeStyle {
    /// Rotates `(x[2i], x[2i+1])` (llama.cpp `LLAMA_ROPE_TYPE_NORM`).
    Adjacent,
    /// Rotates `(x[i], x[i + n/2])` (llama.cpp `LLAMA_ROPE_TYPE_NEOX`).
    Neox,
}

/// Everything the forward pass needs to know about a model's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelConfig {
    pub arch: Arch,
    pub n_layers: usize,
    /// Width of the residual stream (`embedding_length`).
    pub d_model: usize,
    pub n_heads: usize,
    pub n_kv_heads: usize,
    /// Per-head width of queries and keys (also of values: they must match).
    pub head_dim: usize,
    /// Hidden width of the SwiGLU feed-forward block.
    pub ffn_dim: usize,
    pub vocab_size: usize,
    /// Context length the model was trained for.
    pub train_ctx: usize,
    pub rms_eps: f32,
    pub rope_base: f32,
    /// Dimensions of each head that are rotated (`rope.dimension_count`, usually head_dim).
    pub rope_dims: usize,
    /// Position scale for linear RoPE scaling (1.0 = none).
    pub rope_freq_scale: f32,
    pub rope_style: RopeStyle,
}

impl ModelConfig {
    /// Reads and validates the hyper-parameters of a GGUF model.
    pub fn from_gguf(f: &GgufFile) -> Result<ModelConfig, LlmError> {
        let arch_name = f.architecture()?;
        let arch = Arch::from_name(arch_name).ok_or_else(|| LlmError::UnsupportedArch {
            arch: arch_name.to_string(),
        })?;
        let u = |k: &str| -> Result<usize, LlmError> { Ok(f.get_arch::<u32>(k)? as usize) };
        let uo = |k: &str| -> Result<Option<usize>, LlmError> {
            Ok(f.get_arch_opt::<u32>(k)?.map(|v| v as usize))
        };
        let n_layers = u("block_count")?;
        let d_model = u("embedding_length")?;
        let ffn_dim = u("feed_forward_length")?;
        let n_heads = u("attention.head_count")?;
        let n_kv_heads = uo("attention.head_count_kv")?.unwrap_or(n_heads);
        let bad = |reason: String| LlmError::InvalidModel { reason };
        if n_heads == 0 || n_kv_heads == 0 || n_layers == 0 || d_model == 0 || ffn_dim == 0 {
            return Err(bad(format!(
                "zero-sized shape: {n_layers} layers, width {d_model}, ffn {ffn_dim}, {n_heads}/{n_kv_heads} heads"
            )));
        }
        let head_dim = uo("attention.key_length")?.unwrap_or(d_model / n_heads);
        let v_dim = uo("attention.value_length")?.unwrap_or(head_dim);
        if v_dim != head_dim {
            return Err(bad(format!(
                "key length {head_dim} differs from value length {v_dim}"
            )));
        }
        let vocab_size = match uo("vocab_size")? {
            Some(v) => v,
            None => f.require_tensor("token_embd.weight")?.n_rows() as usize,
        };
        let train_ctx = uo("context_length")?.unwrap_or(2048);
        let rms_eps = f
            .get_arch_opt::<f32>("attention.layer_norm_rms_epsilon")?
            .unwrap_or(1e-5);
        let rope_base = f.get_arch_opt::<f32>("rope.freq_base")?.unwrap_or(10_000.0);
        let rope_dims = uo("rope.dimension_count")?.unwrap_or(head_dim);
        let rope_freq_scale = match f.get_arch_opt::<&str>("rope.scaling.type")? {
            None | Some("none") => 1.0,
            Some("linear") => match f.get_arch_opt::<f32>("rope.scaling.factor")? {
                Some(factor) if factor > 0.0 => 1.0 / factor,
                _ => 1.0,
            },
            Some(other) => return Err(bad(format!("unsupported RoPE scaling `{other}`"))),
        };
        let cfg = ModelConfig {
            arch,
            n_layers,
            d_model,
            n_heads,
            n_kv_heads,
            head_dim,
            ffn_dim,
            vocab_size,
            train_ctx,
            rms_eps,
            rope_base,
            rope_dims,
            rope_freq_scale,
            rope_style: arch.rope_style(),
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// Internal consistency checks (shapes the kernels and cache rely on).
    pub fn validate(&self) -> Result<(), LlmError> {
        let bad = |reason: String| Err(LlmError::InvalidModel { reason });
        if !self.n_heads.is_multiple_of(self.n_kv_heads) {
            return bad(format!(
                "{} heads are not a multiple of {} KV heads",
                self.n_heads, self.n_kv_heads
            ));
        }
        if self.head_dim == 0 || !self.head_dim.is_multiple_of(2) || self.head_dim > 1024 {
            return bad(format!(
                "head width {} is not an even number up to 1024",
                self.head_dim
            ));
        }
        if self.rope_dims == 0
            || self.rope_dims > self.head_dim
            || !self.rope_dims.is_multiple_of(2)
        {
            return bad(format!(
                "RoPE over {} of {} dimensions",
                self.rope_dims, self.head_dim
            ));
        }
        let eps_ok = self.rms_eps.is_finite() && self.rms_eps > 0.0;
        let base_ok = self.rope_base.is_finite() && self.rope_base > 1.0;
        if !(eps_ok && base_ok) {
            return bad(format!(
                "RMS epsilon {} / RoPE base {}",
                self.rms_eps, self.rope_base
            ));
        }
        if self.vocab_size == 0 || self.vocab_size > 1 << 24 {
            return bad(format!("vocabulary of {} tokens", self.vocab_size));
        }
        let limit = 1 << 16;
        if self.d_model > limit
            || self.ffn_dim > 4 * limit
            || self.n_layers > 1024
            || self.n_heads > 1024
        {
            return bad(format!(
                "implausible shape: width {}, ffn {}, {} layers, {} heads",
                self.d_model, self.ffn_dim, self.n_layers, self.n_heads
            ));
        }
        Ok(())
    }

    /// Width of all query heads together.
    pub fn q_dim(&self) -> usize {
        self.n_heads * self.head_dim
    }

    /// Width of all key (or value) heads together.
    pub fn kv_dim(&self) -> usize {
        self.n_kv_heads * self.head_dim
    }
}
