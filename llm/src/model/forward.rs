//! The forward pass over a batch of tokens at consecutive positions: embeddings, then per
//! block RMSNorm -> fused Q/K/V matmul (+bias, +Q/K norm) -> RoPE -> f16 KV cache ->
//! causal GQA attention -> output projection + residual -> RMSNorm -> fused gate/up matmul
//! -> SwiGLU -> down projection + residual; finally RMSNorm and the vocabulary projection of
//! the last token (or of every token, to check a drafted run of tokens at once). All buffers
//! live in [`RunState`], allocated once per session.

use pocket_kernels::attn::GroupAttention;
use pocket_kernels::vec::silu_mul;
use pocket_kernels::{
    ChunkCounter, KernelError, MatmulJob, MatmulScratch, ThreadPool, matmul, matmul_many,
};

use super::Model;
use crate::LlmError;
use crate::config::{ModelConfig, RopeStyle};
use crate::kv::KvCache;

/// Preallocated activations for batches of up to `batch` tokens.
pub(crate) struct RunState {
    pub batch: usize,
    /// Residual stream [batch x d_model].
    x: Vec<f32>,
    /// Normalized input of the current sub-block [batch x d_model].
    xn: Vec<f32>,
    /// Sub-block output before the residual add [batch x d_model].
    tmp: Vec<f32>,
    /// [batch x q_dim]
    q: Vec<f32>,
    /// [batch x kv_dim]
    k: Vec<f32>,
    /// [batch x kv_dim]
    v: Vec<f32>,
    /// Attention output [batch x q_dim]
    att: Vec<f32>,
    /// [batch x ffn_dim]
    gate: Vec<f32>,
    /// [batch x ffn_dim]
    up: Vec<f32>,
    /// cos/sin per position and rotated pair [batch x rope_dims]
    rope: Vec<f32>,
    /// Attention scores, `heads per KV group x capacity` per thread.
    scores: Vec<f32>,
    /// Logits of the last token of the last batch [vocab]; `-inf` for the tokens the model's
    /// output projection leaves out (`Model::output_ids`).
    pub logits: Vec<f32>,
    /// The output projection's results when it holds only some tokens [its rows], for one
    /// token, or for up to `EACH_MAX` once [`Logits::Each`] ran.
    head: Vec<f32>,
    /// Logits of every token of the last batch run with [`Logits::Each`] [`EACH_MAX` x vocab];
    /// `-inf` where `logits` has it. Allocated at the first such batch: a session that never
    /// checks drafts (the words judge's) holds none.
    pub each: Vec<f32>,
    scratch: MatmulScratch,
}

/// Most tokens of one batch whose logits [`Logits::Each`] computes (a drafted run checked at
/// once: the token sampled and the tokens drafted after it).
pub(crate) const EACH_MAX: usize = 5;

/// Which logits a [`forward`] pass computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Logits {
    /// None (a prefill batch before the last).
    None,
    /// The last token's, into `RunState::logits`.
    Last,
    /// Every token's (at most [`EACH_MAX`]), into `RunState::each`, row by row.
    Each,
}

impl RunState {
    /// Makes room for [`Logits::Each`] (once per session).
    fn each_room(&mut self, model: &Model) {
        if !self.each.is_empty() {
            return;
        }
        let v = model.config().vocab_size;
        match &model.output_ids {
            None => self.each = vec![0.0; EACH_MAX * v],
            Some(ids) => {
                self.each = vec![f32::NEG_INFINITY; EACH_MAX * v];
                self.head.resize(EACH_MAX * ids.len(), 0.0);
            }
        }
    }

    pub fn new(model: &Model, batch: usize, capacity: usize, threads: usize) -> RunState {
        let cfg = model.config();
        let z = |n: usize| vec![0.0f32; n];
        let (logits, head) = match &model.output_ids {
            None => (z(cfg.vocab_size), Vec::new()),
            Some(ids) => (vec![f32::NEG_INFINITY; cfg.vocab_size], z(ids.len())),
        };
        let mut scratch = MatmulScratch::new();
        scratch.reserve(batch, cfg.d_model.max(cfg.q_dim()).max(cfg.ffn_dim));
        RunState {
            batch,
            x: z(batch * cfg.d_model),
            xn: z(batch * cfg.d_model),
            tmp: z(batch * cfg.d_model),
            q: z(batch * cfg.q_dim()),
            k: z(batch * cfg.kv_dim()),
            v: z(batch * cfg.kv_dim()),
            att: z(batch * cfg.q_dim()),
            gate: z(batch * cfg.ffn_dim),
            up: z(batch * cfg.ffn_dim),
            rope: z(batch * cfg.rope_dims),
            scores: z(threads * capacity * (cfg.n_heads / cfg.n_kv_heads)),
            logits,
            head,
            each: Vec::new(),
            scratch,
        }
    }
}

/// Runs `tokens` (at most `st.batch`) at positions `pos..pos + n` through the model, adding
/// their keys and values to `kv`; computes the logits `logits` asks for.
pub(crate) fn forward(
    m: &Model,
    st: &mut RunState,
    kv: &mut KvCache,
    pool: &ThreadPool,
    tokens: &[u32],
    pos: usize,
    logits: Logits,
) -> Result<(), LlmError> {
    let c = m.config();
    let n = tokens.len();
    if logits == Logits::Each && n > EACH_MAX {
        return Err(LlmError::InvalidSession {
            reason: format!("logits of {n} tokens at once (at most {EACH_MAX})"),
        });
    }
    if n == 0 || n > st.batch || pos + n > kv.capacity() {
        return Err(LlmError::ContextFull {
            tokens: pos + n,
            max: kv.capacity(),
        });
    }
    let (d, qd, kvd, f) = (c.d_model, c.q_dim(), c.kv_dim(), c.ffn_dim);
    for (t, &tok) in tokens.iter().enumerate() {
        m.embed(tok, &mut st.x[t * d..(t + 1) * d])?;
    }
    rope_table(c, pos, n, &mut st.rope);
    let eps = c.rms_eps;
    let first_norm = m.layers.first().map_or(&m.output_norm, |l| &l.attn_norm);
    rms_norm_rows(&st.x[..n * d], first_norm, eps, &mut st.xn[..n * d]);
    for (li, l) in m.layers.iter().enumerate() {
        // Attention block (`xn` holds the normalized input).
        matmul_many(
            pool,
            &mut [
                MatmulJob {
                    w: m.weights(&l.wq)?,
                    out: &mut st.q[..n * qd],
                },
                MatmulJob {
                    w: m.weights(&l.wk)?,
                    out: &mut st.k[..n * kvd],
                },
                MatmulJob {
                    w: m.weights(&l.wv)?,
                    out: &mut st.v[..n * kvd],
                },
            ],
            &st.xn[..n * d],
            n,
            &mut st.scratch,
        )?;
        {
            let (q, k, v) = (
                RowsMut::new(&mut st.q, qd),
                RowsMut::new(&mut st.k, kvd),
                RowsMut::new(&mut st.v, kvd),
            );
            let rope = &st.rope;
            per_row(pool, n, &|t| {
                // SAFETY: `per_row` hands each row index to exactly one call.
                let (q, k, v) = unsafe { (q.row(t), k.row(t), v.row(t)) };
                add_bias(q, l.bq.as_deref());
                add_bias(k, l.bk.as_deref());
                add_bias(v, l.bv.as_deref());
                if let Some(w) = &l.q_norm {
                    rms_norm_rows_inplace(q, w, eps);
                }
                if let Some(w) = &l.k_norm {
                    rms_norm_rows_inplace(k, w, eps);
                }
                let angles = &rope[t * c.rope_dims..(t + 1) * c.rope_dims];
                apply_rope(c, angles, q);
                apply_rope(c, angles, k);
            })?;
        }
        kv.write(li, pos, n, &st.k[..n * kvd], &st.v[..n * kvd]);
        attention(
            c,
            pool,
            kv,
            li,
            &st.q[..n * qd],
            n,
            pos,
            &mut st.att[..n * qd],
            &mut st.scores,
        )?;
        matmul(
            pool,
            &m.weights(&l.wo)?,
            &st.att[..n * qd],
            n,
            &mut st.tmp[..n * d],
            &mut st.scratch,
        )?;
        residual_norm(pool, &mut st.x, &st.tmp, &mut st.xn, n, d, &l.ffn_norm, eps)?;
        // Feed-forward block.
        matmul_many(
            pool,
            &mut [
                MatmulJob {
                    w: m.weights(&l.w_gate)?,
                    out: &mut st.gate[..n * f],
                },
                MatmulJob {
                    w: m.weights(&l.w_up)?,
                    out: &mut st.up[..n * f],
                },
            ],
            &st.xn[..n * d],
            n,
            &mut st.scratch,
        )?;
        {
            let (gate, up) = (RowsMut::new(&mut st.gate, f), &st.up);
            per_row(pool, n, &|t| {
                // SAFETY: `per_row` hands each row index to exactly one call.
                silu_mul(unsafe { gate.row(t) }, &up[t * f..(t + 1) * f]);
            })?;
        }
        matmul(
            pool,
            &m.weights(&l.w_down)?,
            &st.gate[..n * f],
            n,
            &mut st.tmp[..n * d],
            &mut st.scratch,
        )?;
        let next_norm = m
            .layers
            .get(li + 1)
            .map_or(&m.output_norm, |l| &l.attn_norm);
        residual_norm(pool, &mut st.x, &st.tmp, &mut st.xn, n, d, next_norm, eps)?;
    }
    // `xn` holds the output-normalized rows; `out` gets `rows` rows of logits.
    let v = c.vocab_size;
    let (x, rows, out) = match logits {
        Logits::None => return Ok(()),
        Logits::Last => (&st.xn[(n - 1) * d..n * d], 1, &mut st.logits[..v]),
        Logits::Each => {
            st.each_room(m);
            (&st.xn[..n * d], n, &mut st.each[..n * v])
        }
    };
    let head = m.weights(&m.output)?;
    match &m.output_ids {
        None => matmul(pool, &head, x, rows, out, &mut st.scratch)?,
        Some(ids) => {
            let h = ids.len();
            let part = &mut st.head[..rows * h];
            matmul(pool, &head, x, rows, part, &mut st.scratch)?;
            for (row, out) in part.chunks_exact(h).zip(out.chunks_exact_mut(v)) {
                for (&id, &l) in ids.iter().zip(row) {
                    out[id as usize] = l;
                }
            }
        }
    }
    Ok(())
}

/// Batches at least this large run their row-wise steps on the pool.
const PAR_ROWS: usize = 8;

/// Calls `f(t)` once for every row `t` in `0..n`: inline for small batches, else spread over
/// the pool.
fn per_row(pool: &ThreadPool, n: usize, f: &(dyn Fn(usize) + Sync)) -> Result<(), KernelError> {
    if n < PAR_ROWS || pool.threads() == 1 {
        (0..n).for_each(f);
        return Ok(());
    }
    let counter = ChunkCounter::new(n, 4);
    pool.run(|_| {
        while let Some(r) = counter.next() {
            r.for_each(f);
        }
    })
}

/// `x += y; xn = rmsnorm(x) * w`, row by row.
#[allow(clippy::too_many_arguments)]
fn residual_norm(
    pool: &ThreadPool,
    x: &mut [f32],
    y: &[f32],
    xn: &mut [f32],
    n: usize,
    d: usize,
    w: &[f32],
    eps: f32,
) -> Result<(), KernelError> {
    let (xr, xnr) = (RowsMut::new(x, d), RowsMut::new(xn, d));
    per_row(pool, n, &|t| {
        // SAFETY: `per_row` hands each row index to exactly one call.
        let (x, xn) = unsafe { (xr.row(t), xnr.row(t)) };
        add_into(x, &y[t * d..(t + 1) * d]);
        rms_norm_rows(x, w, eps, xn);
    })
}

/// Rows of a buffer handed to pool threads, one row per call.
struct RowsMut {
    ptr: *mut f32,
    row: usize,
    rows: usize,
}

// SAFETY: rows are only reached through `row`, whose callers guarantee disjoint indices.
unsafe impl Sync for RowsMut {}

impl RowsMut {
    fn new(buf: &mut [f32], row: usize) -> RowsMut {
        RowsMut {
            ptr: buf.as_mut_ptr(),
            row,
            rows: buf.len() / row.max(1),
        }
    }

    /// Row `t`.
    ///
    /// # Safety
    /// No other live reference to row `t` may exist (each index used by one caller at a time),
    /// and the buffer must outlive the returned slice.
    #[allow(clippy::mut_from_ref)]
    unsafe fn row(&self, t: usize) -> &mut [f32] {
        assert!(t < self.rows, "row {t} of {}", self.rows);
        // SAFETY: in bounds (checked above); exclusivity guaranteed by the caller.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(t * self.row), self.row) }
    }
}

/// `out = x / sqrt(mean(x²) + eps) * w` for each row of `w.len()` values (sum in f64, as
/// llama.cpp).
fn rms_norm_rows(x: &[f32], w: &[f32], eps: f32, out: &mut [f32]) {
    let d = w.len();
    for (xr, or) in x.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
        let s = rms_scale(xr, eps);
        for ((o, v), g) in or.iter_mut().zip(xr).zip(w) {
            *o = v * s * g;
        }
    }
}

fn rms_norm_rows_inplace(x: &mut [f32], w: &[f32], eps: f32) {
    let d = w.len();
    for xr in x.chunks_exact_mut(d) {
        let s = rms_scale(xr, eps);
        for (v, g) in xr.iter_mut().zip(w) {
            *v = *v * s * g;
        }
    }
}

fn rms_scale(x: &[f32], eps: f32) -> f32 {
    let sum: f64 = x.iter().map(|&v| f64::from(v * v)).sum();
    let mean = (sum / x.len() as f64) as f32;
    1.0 / (mean + eps).sqrt()
}

fn add_bias(x: &mut [f32], b: Option<&[f32]>) {
    if let Some(b) = b {
        for row in x.chunks_exact_mut(b.len()) {
            add_into(row, b);
        }
    }
}

fn add_into(x: &mut [f32], y: &[f32]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

/// cos/sin of every rotated pair for positions `pos..pos + n`, computed as llama.cpp's
/// `rope_cache_init` does (angle advanced by repeated multiplication, in f32).
fn rope_table(c: &ModelConfig, pos: usize, n: usize, out: &mut [f32]) {
    let pairs = c.rope_dims / 2;
    let theta_scale = c.rope_base.powf(-2.0 / c.rope_dims as f32);
    for t in 0..n {
        let mut theta = (pos + t) as f32;
        let row = &mut out[t * 2 * pairs..(t + 1) * 2 * pairs];
        for i in 0..pairs {
            let a = c.rope_freq_scale * theta;
            row[2 * i] = a.cos();
            row[2 * i + 1] = a.sin();
            theta *= theta_scale;
        }
    }
}

/// Rotates every head of one token's row `x` by that token's angles (`cos, sin` per pair).
fn apply_rope(c: &ModelConfig, angles: &[f32], x: &mut [f32]) {
    let pairs = c.rope_dims / 2;
    for head in x.chunks_exact_mut(c.head_dim) {
        for i in 0..pairs {
            let (j0, j1) = match c.rope_style {
                RopeStyle::Adjacent => (2 * i, 2 * i + 1),
                RopeStyle::Neox => (i, i + pairs),
            };
            let (cos, sin) = (angles[2 * i], angles[2 * i + 1]);
            let (a, b) = (head[j0], head[j1]);
            head[j0] = a * cos - b * sin;
            head[j1] = a * sin + b * cos;
        }
    }
}

/// Causal attention of `n` query rows at positions `pos..pos + n` over the cache. Work items
/// are (token, KV group) pairs shared out over the pool: the query heads of a group are scored
/// together ([`GroupAttention`]), each thread into its own rows of `scores`.
#[allow(clippy::too_many_arguments)]
fn attention(
    c: &ModelConfig,
    pool: &ThreadPool,
    kv: &KvCache,
    layer: usize,
    q: &[f32],
    n: usize,
    pos: usize,
    out: &mut [f32],
    scores: &mut [f32],
) -> Result<(), LlmError> {
    let (hd, qd, nkv) = (c.head_dim, c.q_dim(), c.n_kv_heads);
    let group = c.n_heads / nkv;
    let cap = kv.capacity();
    let per_thread = group * cap;
    let scale = 1.0 / (hd as f32).sqrt();
    let counter = ChunkCounter::new(n * nkv, 1);
    let out_ptr = SyncPtr(out.as_mut_ptr());
    let scores_ptr = SyncPtr(scores.as_mut_ptr());
    debug_assert!(scores.len() >= pool.threads() * per_thread);
    let failed = std::sync::atomic::AtomicBool::new(false);
    pool.run(|tid| {
        let (out_ptr, scores_ptr) = (out_ptr.get(), scores_ptr.get());
        // SAFETY: each thread owns its `per_thread` slice of the scores buffer.
        let sc =
            unsafe { std::slice::from_raw_parts_mut(scores_ptr.add(tid * per_thread), per_thread) };
        while let Some(items) = counter.next() {
            for item in items {
                let (t, g) = (item / nkv, item % nkv);
                let a = GroupAttention {
                    q: &q[t * qd + g * group * hd..][..group * hd],
                    heads: group,
                    head_dim: hd,
                    keys_t: kv.keys_t(layer, g),
                    stride: cap,
                    values: kv.values(layer, g),
                    len: pos + t + 1,
                    scale,
                };
                // SAFETY: (t, g) items are disjoint, so are their output slices.
                let o = unsafe {
                    std::slice::from_raw_parts_mut(out_ptr.add(t * qd + g * group * hd), group * hd)
                };
                if a.run(sc, o).is_err() {
                    failed.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
    })?;
    if failed.into_inner() {
        return Err(LlmError::InvalidSession {
            reason: "attention buffers do not match the model".into(),
        });
    }
    Ok(())
}

/// A raw pointer shared with pool threads that write disjoint parts of its buffer.
struct SyncPtr<T>(*mut T);
// SAFETY: only used within one `pool.run`, with disjoint accesses per thread.
unsafe impl<T> Sync for SyncPtr<T> {}
impl<T> SyncPtr<T> {
    fn get(&self) -> *mut T {
        self.0
    }
}
