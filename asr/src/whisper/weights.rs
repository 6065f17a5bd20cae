//! Whisper weights read from a CTranslate2 `WhisperSpec` model: shapes are derived from the
//! file and checked variable by variable.

use crate::ct2::Ct2Model;
use crate::error::AsrError;
use crate::gemm::{Matrix, WeightFormat};

/// Model dimensions found in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub n_mels: usize,
    /// Model width (384 tiny, 512 base).
    pub d: usize,
    pub heads: usize,
    pub enc_layers: usize,
    pub dec_layers: usize,
    pub vocab: usize,
    /// Encoder positions (1500 = 30 s).
    pub audio_ctx: usize,
    /// Decoder positions (448).
    pub text_ctx: usize,
    /// MLP width (4 d).
    pub ffn: usize,
}

/// `y = x W^T + b`.
#[derive(Debug)]
pub struct Linear {
    pub w: Matrix,
    pub b: Option<Vec<f32>>,
}

#[derive(Debug)]
pub struct Norm {
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
}

#[derive(Debug)]
pub struct EncoderLayer {
    pub attn_ln: Norm,
    /// Fused q, k, v projection `[3d][d]`.
    pub qkv: Linear,
    pub out: Linear,
    pub ffn_ln: Norm,
    pub fc1: Linear,
    pub fc2: Linear,
}

#[derive(Debug)]
pub struct DecoderLayer {
    pub self_ln: Norm,
    pub self_qkv: Linear,
    pub self_out: Linear,
    pub cross_ln: Norm,
    pub cross_q: Linear,
    /// Fused k, v projection of the encoder output `[2d][d]`.
    pub cross_kv: Linear,
    pub cross_out: Linear,
    pub ffn_ln: Norm,
    pub fc1: Linear,
    pub fc2: Linear,
}

#[derive(Debug)]
pub struct Weights {
    pub dims: Dims,
    /// Conv1d kernels flattened for im2col: `[d][n_mels * 3]`, `[d][d * 3]`.
    pub conv1: Linear,
    pub conv2: Linear,
    /// `[audio_ctx][d]` sinusoidal positions.
    pub enc_pos: Vec<f32>,
    pub enc: Vec<EncoderLayer>,
    pub enc_ln: Norm,
    /// Token embeddings, also the output projection (tied): `[vocab][d]`.
    pub embed: Matrix,
    /// `[text_ctx][d]` learned positions.
    pub dec_pos: Vec<f32>,
    pub dec: Vec<DecoderLayer>,
    pub dec_ln: Norm,
}

struct Loader<'a> {
    m: &'a Ct2Model,
    fmt: WeightFormat,
}

impl Loader<'_> {
    fn norm(&self, scope: &str, d: usize) -> Result<Norm, AsrError> {
        Ok(Norm {
            gamma: self.m.f32(&format!("{scope}/gamma"), &[d])?,
            beta: self.m.f32(&format!("{scope}/beta"), &[d])?,
        })
    }

    fn linear(&self, scope: &str, n: usize, k: usize) -> Result<Linear, AsrError> {
        let bits = self.m.f16_bits(&format!("{scope}/weight"), &[n, k])?;
        let bias = format!("{scope}/bias");
        let b = if self.m.has(&bias) {
            Some(self.m.f32(&bias, &[n])?)
        } else {
            None
        };
        Ok(Linear {
            w: Matrix::from_f16(n, k, bits, self.fmt),
            b,
        })
    }

    fn conv(&self, scope: &str, out: usize, inp: usize) -> Result<Linear, AsrError> {
        let bits = self
            .m
            .f16_bits(&format!("{scope}/weight"), &[out, inp, 3])?;
        Ok(Linear {
            // [out][in][3] is already the im2col row layout (c * 3 + tap).
            w: Matrix::from_f16(out, inp * 3, bits, self.fmt),
            b: Some(self.m.f32(&format!("{scope}/bias"), &[out])?),
        })
    }
}

fn dim(m: &Ct2Model, name: &str, axis: usize) -> Result<usize, AsrError> {
    let v = m.get(name)?;
    v.shape
        .get(axis)
        .copied()
        .ok_or_else(|| AsrError::BadModel {
            path: Default::default(),
            detail: format!("{name} has shape {:?}", v.shape),
        })
}

fn count_layers(m: &Ct2Model, prefix: &str) -> usize {
    (0..)
        .take_while(|i| m.has(&format!("{prefix}/layer_{i}/ffn/linear_0/weight")))
        .count()
}

/// Whisper's longest decoder prompt: start of transcript, language, task, no timestamps.
pub const MAX_PROMPT: usize = 4;

/// Sizes the forward pass relies on (the file's shapes are consistent, but may be 0 or too
/// small): at least one encoder position (the window is `2 * audio_ctx` mel frames), room for
/// the longest prompt in the decoder context, and non-empty widths.
fn check_sizes(dims: &Dims) -> Result<(), String> {
    if dims.audio_ctx == 0 {
        return Err("audio context (encoder positions) is 0; at least 1 is needed".into());
    }
    if dims.text_ctx < MAX_PROMPT {
        return Err(format!(
            "text context (decoder positions) is {}; the prompt alone needs {MAX_PROMPT}",
            dims.text_ctx
        ));
    }
    if dims.d == 0 || dims.ffn == 0 || dims.vocab == 0 {
        return Err(format!("empty model width in {dims:?}"));
    }
    Ok(())
}

impl Weights {
    pub fn load(m: &Ct2Model, fmt: WeightFormat) -> Result<Self, AsrError> {
        let bad = |detail: String| AsrError::BadModel {
            path: Default::default(),
            detail,
        };
        if m.spec_name != "WhisperSpec" {
            return Err(bad(format!(
                "model spec is {}, not WhisperSpec",
                m.spec_name
            )));
        }
        let d = dim(m, "encoder/conv1/weight", 0)?;
        let heads = usize::try_from(m.scalar_int("encoder/num_heads")?).unwrap_or(0);
        let dec_heads = usize::try_from(m.scalar_int("decoder/num_heads")?).unwrap_or(0);
        if heads == 0 || d % heads != 0 || dec_heads != heads {
            return Err(bad(format!(
                "invalid head counts {heads}/{dec_heads} for width {d}"
            )));
        }
        let dims = Dims {
            n_mels: dim(m, "encoder/conv1/weight", 1)?,
            d,
            heads,
            enc_layers: count_layers(m, "encoder"),
            dec_layers: count_layers(m, "decoder"),
            vocab: dim(m, "decoder/embeddings/weight", 0)?,
            audio_ctx: dim(m, "encoder/position_encodings/encodings", 0)?,
            text_ctx: dim(m, "decoder/position_encodings/encodings", 0)?,
            ffn: dim(m, "encoder/layer_0/ffn/linear_0/weight", 0)?,
        };
        if dims.enc_layers == 0 || dims.dec_layers == 0 || dims.n_mels != crate::mel::N_MELS {
            return Err(bad(format!("unsupported dimensions {dims:?}")));
        }
        check_sizes(&dims).map_err(bad)?;
        let l = Loader { m, fmt };
        let (d, f) = (dims.d, dims.ffn);
        let enc = (0..dims.enc_layers)
            .map(|i| {
                let s = format!("encoder/layer_{i}");
                Ok(EncoderLayer {
                    attn_ln: l.norm(&format!("{s}/self_attention/layer_norm"), d)?,
                    qkv: l.linear(&format!("{s}/self_attention/linear_0"), 3 * d, d)?,
                    out: l.linear(&format!("{s}/self_attention/linear_1"), d, d)?,
                    ffn_ln: l.norm(&format!("{s}/ffn/layer_norm"), d)?,
                    fc1: l.linear(&format!("{s}/ffn/linear_0"), f, d)?,
                    fc2: l.linear(&format!("{s}/ffn/linear_1"), d, f)?,
                })
            })
            .collect::<Result<Vec<_>, AsrError>>()?;
        let dec = (0..dims.dec_layers)
            .map(|i| {
                let s = format!("decoder/layer_{i}");
                Ok(DecoderLayer {
                    self_ln: l.norm(&format!("{s}/self_attention/layer_norm"), d)?,
                    self_qkv: l.linear(&format!("{s}/self_attention/linear_0"), 3 * d, d)?,
                    self_out: l.linear(&format!("{s}/self_attention/linear_1"), d, d)?,
                    cross_ln: l.norm(&format!("{s}/attention/layer_norm"), d)?,
                    cross_q: l.linear(&format!("{s}/attention/linear_0"), d, d)?,
                    cross_kv: l.linear(&format!("{s}/attention/linear_1"), 2 * d, d)?,
                    cross_out: l.linear(&format!("{s}/attention/linear_2"), d, d)?,
                    ffn_ln: l.norm(&format!("{s}/ffn/layer_norm"), d)?,
                    fc1: l.linear(&format!("{s}/ffn/linear_0"), f, d)?,
                    fc2: l.linear(&format!("{s}/ffn/linear_1"), d, f)?,
                })
            })
            .collect::<Result<Vec<_>, AsrError>>()?;
        let embed_bits = m.f16_bits("decoder/embeddings/weight", &[dims.vocab, d])?;
        // The output projection must be the tied embedding (CT2 stores it as an alias).
        if m.has("decoder/projection/weight") {
            let p = m.get("decoder/projection/weight")?;
            if p.shape != [dims.vocab, d] {
                return Err(bad(
                    "decoder/projection/weight has an unexpected shape".into()
                ));
            }
        }
        Ok(Self {
            dims,
            conv1: l.conv("encoder/conv1", d, dims.n_mels)?,
            conv2: l.conv("encoder/conv2", d, d)?,
            enc_pos: m.f32("encoder/position_encodings/encodings", &[dims.audio_ctx, d])?,
            enc,
            enc_ln: l.norm("encoder/layer_norm", d)?,
            embed: Matrix::from_f16(dims.vocab, d, embed_bits, fmt),
            dec_pos: m.f32("decoder/position_encodings/encodings", &[dims.text_ctx, d])?,
            dec,
            dec_ln: l.norm("decoder/layer_norm", d)?,
        })
    }

    /// Bytes held by all weight matrices.
    pub fn size_bytes(&self) -> usize {
        let lin = |l: &Linear| l.w.size_bytes() + l.b.as_ref().map_or(0, |b| b.len() * 4);
        let mut s = lin(&self.conv1) + lin(&self.conv2) + self.embed.size_bytes();
        s += (self.enc_pos.len() + self.dec_pos.len()) * 4;
        for e in &self.enc {
            s += lin(&e.qkv) + lin(&e.out) + lin(&e.fc1) + lin(&e.fc2);
        }
        for l in &self.dec {
            s += lin(&l.self_qkv) + lin(&l.self_out) + lin(&l.cross_q) + lin(&l.cross_kv);
            s += lin(&l.cross_out) + lin(&l.fc1) + lin(&l.fc2);
        }
        s
    }
}
