//! Whisper's audio encoder on the actual input length: two convolutions (im2col + GEMM),
//! sinusoidal positions, pre-norm transformer layers, final norm. Buffers live in
//! [`EncoderState`] and are reused across calls.

use std::sync::Mutex;

use super::ops::{gelu, layer_norm};
use super::silence::{HeadScratch, SilentHead, attend};
use super::weights::{Linear, Weights};
use crate::error::AsrError;
use crate::gemm::{self, Isa};
use pocket_kernels::ThreadPool;

/// One f32 buffer per layer.
type PerLayer = Vec<Vec<f32>>;

/// Activations of the encoder, sized for the longest input seen so far.
#[derive(Debug, Default)]
pub struct EncoderState {
    cols: Vec<f32>,
    h1: Vec<f32>,
    /// Output: `[positions][d]` after the final layer norm.
    pub x: Vec<f32>,
    ln: Vec<f32>,
    qkv: Vec<f32>,
    attn: Vec<f32>,
    ffn: Vec<f32>,
    heads: Vec<Mutex<HeadScratch>>,
    /// Number of valid positions in `x`.
    pub positions: usize,
    /// When set, per-layer keys and values are recorded here (`SilenceContext::build`).
    capture: Option<(PerLayer, PerLayer)>,
}

fn linear(
    pool: &ThreadPool,
    isa: Isa,
    l: &Linear,
    x: &[f32],
    m: usize,
    y: &mut Vec<f32>,
) -> Result<(), AsrError> {
    y.resize(m * l.w.n, 0.0);
    gemm::matmul(pool, isa, x, m, &l.w, l.b.as_deref(), y)
}

/// A silent 30 s window's keys and values per encoder layer and head (see `silence.rs`), and
/// the decoder's cross-attention keys/values of its output (`[audio_ctx][2d]` per decoder
/// layer). With it the encoder runs only the audio positions, which attend to the silent
/// positions after them as if the 30 s window were there (the silent positions are not
/// updated by the audio).
#[derive(Debug)]
pub struct SilenceContext {
    pub floor: f32,
    /// `[layer][head]`.
    pub heads: Vec<Vec<SilentHead>>,
    pub cross_kv: Vec<Vec<f32>>,
}

impl SilenceContext {
    /// Runs the full 30 s window on a constant log-mel `floor` once.
    pub fn build(w: &Weights, pool: &ThreadPool, isa: Isa, floor: f32) -> Result<Self, AsrError> {
        let dm = w.dims;
        let frames = 2 * dm.audio_ctx;
        let mel = vec![floor; dm.n_mels * frames];
        let mut st = EncoderState {
            capture: Some((Vec::new(), Vec::new())),
            ..Default::default()
        };
        encode(w, pool, isa, &mel, frames, None, &mut st)?;
        let (k, v) = st.capture.take().unwrap_or_default();
        let t = dm.audio_ctx;
        let hd = dm.d / dm.heads;
        let heads = k
            .iter()
            .zip(&v)
            .map(|(k, v)| {
                (0..dm.heads)
                    .map(|h| SilentHead::build(k, v, t, dm.d, hd, h))
                    .collect()
            })
            .collect();
        let cross_kv = w
            .dec
            .iter()
            .map(|l| {
                let mut kv = vec![0f32; t * 2 * dm.d];
                gemm::matmul(
                    pool,
                    isa,
                    &st.x,
                    t,
                    &l.cross_kv.w,
                    l.cross_kv.b.as_deref(),
                    &mut kv,
                )?;
                Ok(kv)
            })
            .collect::<Result<_, AsrError>>()?;
        Ok(Self {
            floor,
            heads,
            cross_kv,
        })
    }
}

/// Runs the encoder on `mel` (`[n_mels][frames]`, frames even and at most 2 * audio_ctx).
pub fn encode(
    w: &Weights,
    pool: &ThreadPool,
    isa: Isa,
    mel: &[f32],
    frames: usize,
    silence: Option<&SilenceContext>,
    st: &mut EncoderState,
) -> Result<(), AsrError> {
    let dm = w.dims;
    let (d, nm) = (dm.d, dm.n_mels);
    let t = frames / 2;
    debug_assert!(t <= dm.audio_ctx && mel.len() >= nm * frames);
    // conv1: im2col over the mel input, kernel 3, padding 1, stride 1.
    st.cols.resize(frames * nm * 3, 0.0);
    for f in 0..frames {
        let row = &mut st.cols[f * nm * 3..(f + 1) * nm * 3];
        for c in 0..nm {
            for j in 0..3 {
                let src = f as isize + j as isize - 1;
                row[c * 3 + j] = if (0..frames as isize).contains(&src) {
                    mel[c * frames + src as usize]
                } else {
                    0.0
                };
            }
        }
    }
    linear(pool, isa, &w.conv1, &st.cols, frames, &mut st.h1)?;
    gelu(&mut st.h1[..frames * d]);
    // conv2: kernel 3, padding 1, stride 2.
    st.cols.resize(t * d * 3, 0.0);
    for p in 0..t {
        let row = &mut st.cols[p * d * 3..(p + 1) * d * 3];
        for j in 0..3 {
            let src = (2 * p) as isize + j as isize - 1;
            for c in 0..d {
                row[c * 3 + j] = if (0..frames as isize).contains(&src) {
                    st.h1[src as usize * d + c]
                } else {
                    0.0
                };
            }
        }
    }
    linear(pool, isa, &w.conv2, &st.cols, t, &mut st.x)?;
    gelu(&mut st.x[..t * d]);
    for (x, p) in st.x[..t * d].iter_mut().zip(&w.enc_pos[..t * d]) {
        *x += p;
    }
    st.ln.resize(t * d, 0.0);
    if st.heads.len() < pool.threads() {
        st.heads.resize_with(pool.threads(), Default::default);
    }
    for (li, l) in w.enc.iter().enumerate() {
        layer_norm(
            &st.x[..t * d],
            d,
            &l.attn_ln.gamma,
            &l.attn_ln.beta,
            &mut st.ln,
        );
        linear(pool, isa, &l.qkv, &st.ln, t, &mut st.qkv)?;
        if let Some((ks, vs)) = &mut st.capture {
            ks.push(
                st.qkv
                    .chunks_exact(3 * d)
                    .take(t)
                    .flat_map(|r| r[d..2 * d].to_vec())
                    .collect(),
            );
            vs.push(
                st.qkv
                    .chunks_exact(3 * d)
                    .take(t)
                    .flat_map(|r| r[2 * d..].to_vec())
                    .collect(),
            );
        }
        let ctx = silence.map(|s| (&s.heads[li][..], dm.audio_ctx));
        self_attention(
            pool,
            isa,
            &st.qkv,
            t,
            d,
            dm.heads,
            ctx,
            &st.heads,
            &mut st.attn,
        )?;
        linear(pool, isa, &l.out, &st.attn, t, &mut st.ln)?;
        for (x, a) in st.x[..t * d].iter_mut().zip(&st.ln[..t * d]) {
            *x += a;
        }
        layer_norm(
            &st.x[..t * d],
            d,
            &l.ffn_ln.gamma,
            &l.ffn_ln.beta,
            &mut st.ln,
        );
        linear(pool, isa, &l.fc1, &st.ln, t, &mut st.ffn)?;
        gelu(&mut st.ffn[..t * dm.ffn]);
        linear(pool, isa, &l.fc2, &st.ffn, t, &mut st.ln)?;
        for (x, a) in st.x[..t * d].iter_mut().zip(&st.ln[..t * d]) {
            *x += a;
        }
    }
    let x = std::mem::take(&mut st.x);
    layer_norm(&x[..t * d], d, &w.enc_ln.gamma, &w.enc_ln.beta, &mut st.ln);
    st.x = x;
    st.x[..t * d].copy_from_slice(&st.ln[..t * d]);
    st.positions = t;
    Ok(())
}

/// One layer's silent keys and values per head, and the window length.
type SilentHeads<'a> = (&'a [SilentHead], usize);

/// Full (non-causal) multi-head attention over `t` positions; `qkv` is `[t][3d]`.
#[allow(clippy::too_many_arguments)]
fn self_attention(
    pool: &ThreadPool,
    isa: Isa,
    qkv: &[f32],
    t: usize,
    d: usize,
    heads: usize,
    silence: Option<SilentHeads<'_>>,
    scratch: &[Mutex<HeadScratch>],
    out: &mut Vec<f32>,
) -> Result<(), AsrError> {
    let hd = d / heads;
    let scale = 1.0 / (hd as f32).sqrt();
    out.resize(t * d, 0.0);
    let outp = OutPtr(out.as_mut_ptr());
    let claims = pocket_kernels::ChunkCounter::new(heads, 1);
    pool.run(|ti| {
        let mut s = scratch[ti].lock().unwrap_or_else(|e| e.into_inner());
        let s = &mut *s;
        s.q.resize(t * hd, 0.0);
        s.k.resize(t * hd, 0.0);
        s.vt.resize(hd * t, 0.0);
        while let Some(claim) = claims.next() {
            let h = claim.start;
            for p in 0..t {
                let row = &qkv[p * 3 * d..(p + 1) * 3 * d];
                for i in 0..hd {
                    s.q[p * hd + i] = row[h * hd + i] * scale;
                    s.k[p * hd + i] = row[d + h * hd + i];
                    s.vt[i * t + p] = row[2 * d + h * hd + i];
                }
            }
            let (silent, ctx) = match silence {
                Some((heads, ctx)) => (heads.get(h), ctx.max(t)),
                None => (None, t),
            };
            attend(isa, t, hd, ctx, silent, s);
            for p in 0..t {
                // SAFETY: head h owns columns h*hd..(h+1)*hd of every row; heads are split
                // between threads without overlap.
                let dst =
                    unsafe { std::slice::from_raw_parts_mut(outp.get().add(p * d + h * hd), hd) };
                dst.copy_from_slice(&s.out[p * hd..(p + 1) * hd]);
            }
        }
    })?;
    Ok(())
}

#[derive(Clone, Copy)]
struct OutPtr(*mut f32);
// SAFETY: used to write disjoint head columns from pool threads while `out` is borrowed.
unsafe impl Send for OutPtr {}
unsafe impl Sync for OutPtr {}
impl OutPtr {
    fn get(self) -> *mut f32 {
        self.0
    }
}
