//! The virtual 30 s window: keys and values of a silent window, computed once at load, that
//! the audio positions attend to as if the window were there; and the attention of one head
//! over the audio keys followed by the silent ones.
//!
//! The products stay f32: running the two large ones (queries x silent keys, probabilities x
//! silent values) on `pocket-kernels`' int8 matmul with Q8_0 silent keys/values was measured
//! no faster (the key product is only 64 deep, and the probabilities must be quantized per
//! call): 3.0 s clip attention 35 vs 34 ms, 7.1 s 95 vs 78 ms.

use super::ops::softmax;
use crate::gemm::{self, Isa, View};

/// One head's silent keys `[ctx][hd]` and values transposed `[hd][ctx]`.
#[derive(Debug)]
pub struct SilentHead {
    k: Vec<f32>,
    vt: Vec<f32>,
}

/// Head `h` of `[ctx][d]` rows as `[ctx][hd]`, or (`transpose`) as `[hd][ctx]`.
fn split_head(x: &[f32], ctx: usize, d: usize, hd: usize, h: usize, transpose: bool) -> Vec<f32> {
    let mut out = vec![0f32; ctx * hd];
    for p in 0..ctx {
        for i in 0..hd {
            let at = if transpose { i * ctx + p } else { p * hd + i };
            out[at] = x[p * d + h * hd + i];
        }
    }
    out
}

impl SilentHead {
    /// Head `h` of a layer's silent keys and values (`[ctx][d]` each).
    pub fn build(k: &[f32], v: &[f32], ctx: usize, d: usize, hd: usize, h: usize) -> Self {
        SilentHead {
            k: split_head(k, ctx, d, hd, h, false),
            vt: split_head(v, ctx, d, hd, h, true),
        }
    }
}

/// Per-thread buffers of one head's attention.
#[derive(Debug, Default)]
pub struct HeadScratch {
    pub q: Vec<f32>,
    pub k: Vec<f32>,
    pub vt: Vec<f32>,
    scores: Vec<f32>,
    pub out: Vec<f32>,
    all_k: Vec<f32>,
    all_vt: Vec<f32>,
}

/// Attention of `t` queries (`s.q`, `[t][hd]`, pre-scaled) over the `t` audio keys (`s.k`,
/// `[t][hd]`) and values (`s.vt`, `[hd][t]`) followed by the silent positions `t..ctx` of
/// `silent` (or over the audio alone); the result lands in `s.out` (`[t][hd]`).
pub fn attend(
    isa: Isa,
    t: usize,
    hd: usize,
    ctx: usize,
    silent: Option<&SilentHead>,
    s: &mut HeadScratch,
) {
    let HeadScratch {
        q,
        k: audio_k,
        vt: audio_vt,
        scores,
        out,
        all_k,
        all_vt,
    } = s;
    // The keys (and transposed values) attended to: the audio's alone, or the audio's
    // followed by the silent positions t..ctx.
    let (keys, vals, n) = match silent {
        None => (&audio_k[..t * hd], &audio_vt[..hd * t], t),
        Some(SilentHead { k, vt }) => {
            all_k.resize(ctx * hd, 0.0);
            all_k[..t * hd].copy_from_slice(&audio_k[..t * hd]);
            all_k[t * hd..].copy_from_slice(&k[t * hd..ctx * hd]);
            all_vt.resize(hd * ctx, 0.0);
            for i in 0..hd {
                let row = &mut all_vt[i * ctx..(i + 1) * ctx];
                row[..t].copy_from_slice(&audio_vt[i * t..(i + 1) * t]);
                row[t..].copy_from_slice(&vt[i * ctx + t..(i + 1) * ctx]);
            }
            (&all_k[..], &all_vt[..], ctx)
        }
    };
    out.resize(t * hd, 0.0);
    scores.resize(t * n, 0.0);
    gemm::matmul_view(isa, q, t, hd, View::F32(keys), n, scores);
    for r in scores.chunks_exact_mut(n) {
        softmax(r);
    }
    gemm::matmul_view(isa, scores, t, n, View::F32(vals), hd, out);
}
