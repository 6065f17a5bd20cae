//! Whisper's text decoder with a KV cache: self-attention keys/values are cached per position,
//! cross-attention keys/values are computed once per encoder output. A call processes a batch
//! of new tokens (the prompt, one greedy step, or a draft to verify) and produces logits only
//! for the rows asked for. All buffers are preallocated at construction.

use super::ops::{gelu, layer_norm, softmax};
use super::weights::{Linear, Weights};
use crate::error::AsrError;
use crate::gemm::{self, Isa, Matrix};
use pocket_kernels::ThreadPool;

/// Most tokens one `forward` call takes (prompt + draft).
pub const MAX_BATCH: usize = 128;

/// Row numbers `0..MAX_BATCH`, for asking every row's logits without allocating.
const ALL_ROWS: [usize; MAX_BATCH] = {
    let mut rows = [0; MAX_BATCH];
    let mut i = 0;
    while i < MAX_BATCH {
        rows[i] = i;
        i += 1;
    }
    rows
};

/// Decoder run state: caches and activations.
#[derive(Debug)]
pub struct DecoderState {
    d: usize,
    heads: usize,
    /// Per layer `[text_ctx][d]`.
    self_k: Vec<Vec<f32>>,
    self_v: Vec<Vec<f32>>,
    /// Per layer `[heads][audio_positions][head_dim]`.
    cross_k: Vec<Vec<f32>>,
    cross_v: Vec<Vec<f32>>,
    cross_len: usize,
    kv_tmp: Vec<f32>,
    /// Cached positions (tokens already run).
    pub pos: usize,
    /// Beam search's caches, per layer `[slot][beam_len][d]` (grown on first use).
    beam_k: Vec<Vec<f32>>,
    beam_v: Vec<Vec<f32>>,
    /// Positions per beam slot (the stride of `beam_k`/`beam_v`).
    beam_len: usize,
    x: Vec<f32>,
    ln: Vec<f32>,
    qkv: Vec<f32>,
    q: Vec<f32>,
    attn: Vec<f32>,
    tmp: Vec<f32>,
    ffn: Vec<f32>,
    scores: Vec<f32>,
    rows: Vec<f32>,
    /// `[rows asked][vocab]` logits of the last `forward`.
    pub logits: Vec<f32>,
    /// Attention scores per pool thread (cross-attention split by heads).
    thread_scores: Vec<std::sync::Mutex<Vec<f32>>>,
}

#[derive(Clone, Copy)]
struct AttnPtr(*mut f32);
// SAFETY: hands disjoint head columns of one buffer to pool threads during `forward`.
unsafe impl Send for AttnPtr {}
unsafe impl Sync for AttnPtr {}
impl AttnPtr {
    fn get(self) -> *mut f32 {
        self.0
    }
}

impl DecoderState {
    pub fn new(w: &Weights) -> Self {
        let dm = w.dims;
        let (d, b) = (dm.d, MAX_BATCH);
        let layers = dm.dec_layers;
        Self {
            d,
            heads: dm.heads,
            self_k: vec![vec![0.0; dm.text_ctx * d]; layers],
            self_v: vec![vec![0.0; dm.text_ctx * d]; layers],
            cross_k: vec![vec![0.0; dm.audio_ctx * d]; layers],
            cross_v: vec![vec![0.0; dm.audio_ctx * d]; layers],
            cross_len: 0,
            kv_tmp: vec![0.0; dm.audio_ctx * 2 * d],
            pos: 0,
            beam_k: vec![Vec::new(); layers],
            beam_v: vec![Vec::new(); layers],
            beam_len: 0,
            x: vec![0.0; b * d],
            ln: vec![0.0; b * d],
            qkv: vec![0.0; b * 3 * d],
            q: vec![0.0; b * d],
            attn: vec![0.0; b * d],
            tmp: vec![0.0; b * d],
            ffn: vec![0.0; b * dm.ffn],
            scores: vec![0.0; dm.audio_ctx.max(dm.text_ctx)],
            rows: vec![0.0; b * d],
            logits: vec![0.0; 4 * dm.vocab],
            thread_scores: Vec::new(),
        }
    }

    /// Computes the cross-attention keys/values of an encoder output `[t][d]` (followed by the
    /// silent positions `t..` of `silence`, `[audio_ctx][2d]` per layer, when given) and clears
    /// the self-attention cache.
    pub fn set_audio(
        &mut self,
        w: &Weights,
        pool: &ThreadPool,
        isa: Isa,
        enc: &[f32],
        t_audio: usize,
        silence: Option<&[Vec<f32>]>,
    ) -> Result<(), AsrError> {
        let (d, h) = (self.d, self.heads);
        let hd = d / h;
        let t = if silence.is_some() {
            w.dims.audio_ctx.max(t_audio)
        } else {
            t_audio
        };
        for (li, l) in w.dec.iter().enumerate() {
            gemm::matmul(
                pool,
                isa,
                enc,
                t_audio,
                &l.cross_kv.w,
                l.cross_kv.b.as_deref(),
                &mut self.kv_tmp,
            )?;
            if let Some(s) = silence {
                let r = t_audio * 2 * d..t * 2 * d;
                self.kv_tmp[r.clone()].copy_from_slice(&s[li][r]);
            }
            let (ck, cv) = (&mut self.cross_k[li], &mut self.cross_v[li]);
            for p in 0..t {
                let row = &self.kv_tmp[p * 2 * d..(p + 1) * 2 * d];
                for hi in 0..h {
                    let dst = (hi * t + p) * hd;
                    ck[dst..dst + hd].copy_from_slice(&row[hi * hd..(hi + 1) * hd]);
                    cv[dst..dst + hd].copy_from_slice(&row[d + hi * hd..d + (hi + 1) * hd]);
                }
            }
        }
        self.cross_len = t;
        self.pos = 0;
        Ok(())
    }

    /// Runs `tokens` at positions `pos..pos+len` and writes logits of the batch rows listed in
    /// `logit_rows` into `self.logits` (`[logit_rows.len()][vocab]`).
    pub fn forward(
        &mut self,
        w: &Weights,
        pool: &ThreadPool,
        isa: Isa,
        tokens: &[u32],
        logit_rows: &[usize],
    ) -> Result<(), AsrError> {
        assert!(
            (1..=MAX_BATCH).contains(&tokens.len()) && self.pos + tokens.len() <= w.dims.text_ctx,
            "decoder batch out of range"
        );
        let at = At::Sequence { start: self.pos };
        self.run(w, pool, isa, tokens, at, logit_rows)?;
        self.pos += tokens.len();
        Ok(())
    }

    /// Prepares `slots` beam caches of `len` positions each and copies the sequence cache
    /// (the prompt run by [`forward`](Self::forward)) into slot 0.
    pub fn beam_start(&mut self, slots: usize, len: usize) {
        let len = len.max(self.pos + 1);
        self.beam_len = len;
        let d = self.d;
        for (bk, k) in self.beam_k.iter_mut().zip(&self.self_k) {
            bk.resize(slots * len * d, 0.0);
            bk[..self.pos * d].copy_from_slice(&k[..self.pos * d]);
        }
        for (bv, v) in self.beam_v.iter_mut().zip(&self.self_v) {
            bv.resize(slots * len * d, 0.0);
            bv[..self.pos * d].copy_from_slice(&v[..self.pos * d]);
        }
    }

    /// Copies the first `n` cached positions of beam slot `from` into slot `to`.
    pub fn beam_copy(&mut self, from: usize, to: usize, n: usize) {
        if from == to {
            return;
        }
        let (d, len) = (self.d, self.beam_len);
        for c in self.beam_k.iter_mut().chain(self.beam_v.iter_mut()) {
            c.copy_within(from * len * d..(from * len + n) * d, to * len * d);
        }
    }

    /// Runs one token per beam: `tokens[i]` at position `pos` of slot `slots[i]`, whose cache
    /// holds positions `0..pos`; writes every row's logits into `self.logits`.
    pub fn forward_beams(
        &mut self,
        w: &Weights,
        pool: &ThreadPool,
        isa: Isa,
        tokens: &[u32],
        slots: &[usize],
        pos: usize,
    ) -> Result<(), AsrError> {
        let slots_held = self
            .beam_k
            .first()
            .map_or(0, |k| k.len() / (self.beam_len * self.d).max(1));
        assert!(
            (1..=MAX_BATCH).contains(&tokens.len())
                && slots.len() == tokens.len()
                && pos < self.beam_len.min(w.dims.text_ctx)
                && slots.iter().all(|&s| s < slots_held),
            "beam batch out of range"
        );
        let at = At::Beams {
            slots,
            pos,
            stride: self.beam_len,
        };
        self.run(w, pool, isa, tokens, at, &ALL_ROWS[..tokens.len()])
    }

    /// The layers over one batch whose rows sit where `at` says; logits of `logit_rows`.
    fn run(
        &mut self,
        w: &Weights,
        pool: &ThreadPool,
        isa: Isa,
        tokens: &[u32],
        at: At<'_>,
        logit_rows: &[usize],
    ) -> Result<(), AsrError> {
        let dm = w.dims;
        let (d, b) = (self.d, tokens.len());
        for (i, &tok) in tokens.iter().enumerate() {
            let x = &mut self.x[i * d..(i + 1) * d];
            embed_row(isa, &w.embed, tok as usize, x);
            let pos = at.row(i).1;
            let p = &w.dec_pos[pos * d..(pos + 1) * d];
            for (a, b) in x.iter_mut().zip(p) {
                *a += b;
            }
        }
        for (li, l) in w.dec.iter().enumerate() {
            // Causal self-attention with the cache.
            layer_norm(
                &self.x[..b * d],
                d,
                &l.self_ln.gamma,
                &l.self_ln.beta,
                &mut self.ln,
            );
            lin(pool, isa, &l.self_qkv, &self.ln, b, &mut self.qkv)?;
            let (ks, vs) = match at {
                At::Sequence { .. } => (&mut self.self_k[li], &mut self.self_v[li]),
                At::Beams { .. } => (&mut self.beam_k[li], &mut self.beam_v[li]),
            };
            for i in 0..b {
                let row = &self.qkv[i * 3 * d..(i + 1) * 3 * d];
                let (base, pos) = at.row(i);
                let w_at = (base + pos) * d;
                ks[w_at..w_at + d].copy_from_slice(&row[d..2 * d]);
                vs[w_at..w_at + d].copy_from_slice(&row[2 * d..3 * d]);
                self.q[i * d..(i + 1) * d].copy_from_slice(&row[..d]);
            }
            for i in 0..b {
                let (base, pos) = at.row(i);
                let n = pos + 1;
                let cache = base * d..(base + n) * d;
                attend_heads(
                    isa,
                    &self.q[i * d..(i + 1) * d],
                    &ks[cache.clone()],
                    &vs[cache],
                    n,
                    d,
                    self.heads,
                    0..self.heads,
                    false,
                    &mut self.scores,
                    &mut self.attn[i * d..(i + 1) * d],
                );
            }
            lin(pool, isa, &l.self_out, &self.attn, b, &mut self.tmp)?;
            add(&mut self.x[..b * d], &self.tmp[..b * d]);
            // Cross-attention over the audio.
            layer_norm(
                &self.x[..b * d],
                d,
                &l.cross_ln.gamma,
                &l.cross_ln.beta,
                &mut self.ln,
            );
            lin(pool, isa, &l.cross_q, &self.ln, b, &mut self.q)?;
            let t = self.cross_len;
            // Over the whole (virtual) 30 s window this is the decoder's largest cost after
            // the vocabulary projection: heads are split over the pool.
            let threads = pool.threads();
            if self.thread_scores.len() < threads {
                self.thread_scores
                    .resize_with(threads, || std::sync::Mutex::new(vec![0.0; t.max(1500)]));
            }
            let attn = AttnPtr(self.attn.as_mut_ptr());
            let (q, ck, cv, heads) = (&self.q, &self.cross_k[li], &self.cross_v[li], self.heads);
            let scratch = &self.thread_scores;
            let claims = pocket_kernels::ChunkCounter::new(heads, 1);
            pool.run(|ti| {
                let mut sc = scratch[ti].lock().unwrap_or_else(|e| e.into_inner());
                if sc.len() < t {
                    sc.resize(t, 0.0);
                }
                while let Some(hs) = claims.next() {
                    let hd = d / heads;
                    for i in 0..b {
                        // SAFETY: the claimed heads' columns of row i lie inside `attn`
                        // (`hs.end <= heads`, `i < b <= MAX_BATCH`) and belong to this thread
                        // alone: claims are disjoint, so no two threads borrow one value.
                        let out = unsafe {
                            std::slice::from_raw_parts_mut(
                                attn.get().add(i * d + hs.start * hd),
                                hs.len() * hd,
                            )
                        };
                        attend_heads(
                            isa,
                            &q[i * d..(i + 1) * d],
                            &ck[..t * d],
                            &cv[..t * d],
                            t,
                            d,
                            heads,
                            hs.clone(),
                            true,
                            &mut sc,
                            out,
                        );
                    }
                }
            })?;
            lin(pool, isa, &l.cross_out, &self.attn, b, &mut self.tmp)?;
            add(&mut self.x[..b * d], &self.tmp[..b * d]);
            // MLP.
            layer_norm(
                &self.x[..b * d],
                d,
                &l.ffn_ln.gamma,
                &l.ffn_ln.beta,
                &mut self.ln,
            );
            lin(pool, isa, &l.fc1, &self.ln, b, &mut self.ffn)?;
            gelu(&mut self.ffn[..b * dm.ffn]);
            lin(pool, isa, &l.fc2, &self.ffn, b, &mut self.tmp)?;
            add(&mut self.x[..b * d], &self.tmp[..b * d]);
        }
        let nr = logit_rows.len();
        for (j, &r) in logit_rows.iter().enumerate() {
            layer_norm(
                &self.x[r * d..(r + 1) * d],
                d,
                &w.dec_ln.gamma,
                &w.dec_ln.beta,
                &mut self.rows[j * d..(j + 1) * d],
            );
        }
        if self.logits.len() < nr * dm.vocab {
            self.logits.resize(nr * dm.vocab, 0.0);
        }
        gemm::matmul(
            pool,
            isa,
            &self.rows[..nr * d],
            nr,
            &w.embed,
            None,
            &mut self.logits,
        )
    }
}

/// Where the rows of one decoder batch sit.
#[derive(Clone, Copy)]
enum At<'a> {
    /// One sequence: row `i` at position `start + i` of the sequence cache.
    Sequence { start: usize },
    /// One row per beam: row `i` at position `pos` of beam slot `slots[i]`.
    Beams {
        slots: &'a [usize],
        pos: usize,
        stride: usize,
    },
}

impl At<'_> {
    /// Row `i`'s cache start (in positions) and its position.
    fn row(&self, i: usize) -> (usize, usize) {
        match *self {
            At::Sequence { start } => (0, start + i),
            At::Beams { slots, pos, stride } => (slots[i] * stride, pos),
        }
    }
}

fn lin(
    pool: &ThreadPool,
    isa: Isa,
    l: &Linear,
    x: &[f32],
    m: usize,
    y: &mut [f32],
) -> Result<(), AsrError> {
    gemm::matmul(pool, isa, x, m, &l.w, l.b.as_deref(), y)
}

fn add(x: &mut [f32], y: &[f32]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

/// Row `j` of the embedding matrix as f32.
fn embed_row(isa: Isa, m: &Matrix, j: usize, out: &mut [f32]) {
    gemm::row_f32(isa, m, j, out);
}

/// Attention of one query row (the heads in `which`) over `n` cached positions, into `out`:
/// the columns of those heads only (`which.len() * head_dim` values). Self-attention keys are
/// laid out `[n][d]`; cross-attention keys `[heads][n][head_dim]` (`head_major`).
#[allow(clippy::too_many_arguments)]
fn attend_heads(
    isa: Isa,
    q: &[f32],
    k: &[f32],
    v: &[f32],
    n: usize,
    d: usize,
    heads: usize,
    which: std::ops::Range<usize>,
    head_major: bool,
    scores: &mut [f32],
    out: &mut [f32],
) {
    let hd = d / heads;
    let scale = 1.0 / (hd as f32).sqrt();
    let first = which.start;
    for h in which {
        let qh = &q[h * hd..(h + 1) * hd];
        let key = |p: usize| {
            if head_major {
                (h * n + p) * hd
            } else {
                p * d + h * hd
            }
        };
        let s = &mut scores[..n];
        for (p, sv) in s.iter_mut().enumerate() {
            let at = key(p);
            *sv = gemm::dot(isa, qh, &k[at..at + hd]) * scale;
        }
        softmax(s);
        let o = &mut out[(h - first) * hd..(h - first + 1) * hd];
        o.fill(0.0);
        for (p, &pw) in s.iter().enumerate() {
            let at = key(p);
            gemm::axpy(isa, pw, &v[at..at + hd], o);
        }
    }
}
