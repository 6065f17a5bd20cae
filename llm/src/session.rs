//! A low-level inference session: one model, a thread pool, an f16 KV cache and preallocated
//! activations. Tokens are appended with [`Session::prefill`] (batched) or
//! [`Session::decode`] (one at a time); the cache keeps every position until
//! [`Session::truncate`], so a caller can reuse a shared prefix and only run new tokens, or
//! [`Session::remove`], which drops a range in the middle (a conversation's oldest turns).

use std::sync::Arc;

use pocket_kernels::ThreadPool;

use crate::LlmError;
use crate::kv::KvCache;
use crate::model::{EACH_MAX, Logits, Model, RunState, forward};

/// Sizes of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionOptions {
    /// Positions the KV cache holds (capped at the model's training context).
    pub context: usize,
    /// Compute threads (0 = one per CPU).
    pub threads: usize,
    /// Most tokens run through the model in one batch during prefill.
    pub batch: usize,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            context: 4096,
            threads: 0,
            batch: 128,
        }
    }
}

/// KV cache + activations for one conversation over a shared [`Model`].
pub struct Session {
    model: Arc<Model>,
    pool: ThreadPool,
    kv: KvCache,
    st: RunState,
    tokens: Vec<u32>,
    /// Tokens of the last [`Session::run_each`] still at the end of the cache, whose logits
    /// `st.each` holds (0: none).
    each: usize,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("len", &self.tokens.len())
            .field("capacity", &self.kv.capacity())
            .field("threads", &self.pool.threads())
            .finish()
    }
}

impl Session {
    pub fn new(model: Arc<Model>, opts: SessionOptions) -> Result<Session, LlmError> {
        let c = model.config();
        let context = opts.context.min(c.train_ctx);
        if context == 0 || opts.batch == 0 {
            return Err(LlmError::InvalidSession {
                reason: "context and batch must be at least 1".into(),
            });
        }
        let pool = ThreadPool::new(opts.threads)?;
        let kv = KvCache::new(c, context)?;
        let st = RunState::new(&model, opts.batch.min(context), context, pool.threads());
        Ok(Session {
            model,
            pool,
            kv,
            st,
            tokens: Vec::with_capacity(context),
            each: 0,
        })
    }

    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// Tokens whose keys and values are in the cache, in position order.
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    /// Positions in use.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Positions the cache holds.
    pub fn capacity(&self) -> usize {
        self.kv.capacity()
    }

    /// Compute threads in use.
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }

    /// Bytes of the KV cache allocation.
    pub fn kv_bytes(&self) -> usize {
        self.kv.bytes()
    }

    /// Appends `tokens` (in batches) and returns the logits after the last one. Fails with
    /// [`LlmError::ContextFull`] before doing any work if they do not fit.
    pub fn prefill(&mut self, tokens: &[u32]) -> Result<&[f32], LlmError> {
        self.check(tokens)?;
        self.each = 0;
        let batch = self.st.batch;
        let chunks = tokens.len().div_ceil(batch);
        for (i, chunk) in tokens.chunks(batch).enumerate() {
            let last = i + 1 == chunks;
            let logits = if last { Logits::Last } else { Logits::None };
            self.run(chunk, logits)?;
        }
        Ok(&self.st.logits)
    }

    /// Most tokens [`Session::run_each`] takes at once.
    pub const EACH_MAX: usize = EACH_MAX;

    /// Appends `tokens` (1 to [`Session::EACH_MAX`]) in one batch and keeps the logits after
    /// each of them ([`Session::logits_after`]): a run of drafted tokens checked in one pass,
    /// which reads the weights once for all of them. Then [`Session::keep_each`] keeps the
    /// tokens that held. Fails before doing any work if they do not fit.
    pub fn run_each(&mut self, tokens: &[u32]) -> Result<(), LlmError> {
        // The forward pass refuses more than `EACH_MAX` before any work.
        self.check(tokens)?;
        self.each = 0;
        self.run(tokens, Logits::Each)?;
        self.each = tokens.len();
        Ok(())
    }

    /// The logits after token `i` of the last [`Session::run_each`] whose tokens are all still
    /// at the end of the cache; empty when there is no such token.
    pub fn logits_after(&self, i: usize) -> &[f32] {
        if i >= self.each {
            return &[];
        }
        let v = self.model.config().vocab_size;
        &self.st.each[i * v..(i + 1) * v]
    }

    /// Keeps the first `n` tokens of the last [`Session::run_each`] (at least one, at most
    /// all) and drops the others; [`Session::logits`] are then the logits after the last one
    /// kept.
    pub fn keep_each(&mut self, n: usize) {
        if self.each == 0 {
            return;
        }
        let n = n.clamp(1, self.each);
        let drop = self.each - n;
        self.tokens.truncate(self.tokens.len() - drop);
        let v = self.model.config().vocab_size;
        self.st
            .logits
            .copy_from_slice(&self.st.each[(n - 1) * v..n * v]);
        self.each = 0;
    }

    /// Fails unless `tokens` is a non-empty run of valid ids that fits in the cache.
    fn check(&self, tokens: &[u32]) -> Result<(), LlmError> {
        if tokens.is_empty() {
            return Err(LlmError::InvalidSession {
                reason: "prefill of zero tokens".into(),
            });
        }
        let total = self.tokens.len() + tokens.len();
        if total > self.kv.capacity() {
            return Err(LlmError::ContextFull {
                tokens: total,
                max: self.kv.capacity(),
            });
        }
        let vocab = self.model.config().vocab_size;
        if let Some(&bad) = tokens.iter().find(|&&t| t as usize >= vocab) {
            return Err(LlmError::InvalidToken {
                id: bad,
                vocab_size: vocab,
            });
        }
        Ok(())
    }

    /// Runs one batch at the end of the cache.
    fn run(&mut self, chunk: &[u32], logits: Logits) -> Result<(), LlmError> {
        let pos = self.tokens.len();
        forward(
            &self.model,
            &mut self.st,
            &mut self.kv,
            &self.pool,
            chunk,
            pos,
            logits,
        )?;
        self.tokens.extend_from_slice(chunk);
        Ok(())
    }

    /// Appends one token and returns the logits after it.
    pub fn decode(&mut self, token: u32) -> Result<&[f32], LlmError> {
        self.prefill(std::slice::from_ref(&token))
    }

    /// Logits after the last token run (zeros before any).
    pub fn logits(&self) -> &[f32] {
        &self.st.logits
    }

    /// Keeps only the first `len` positions (later ones are recomputed if needed).
    pub fn truncate(&mut self, len: usize) {
        self.each = 0;
        self.tokens.truncate(len);
    }

    /// Removes positions `start..end` from the cache without running the model: later
    /// positions move down (their keys re-rotated), so a conversation can drop its oldest
    /// turns at the cost of a memory move. Fails on a range outside the positions in use.
    pub fn remove(&mut self, start: usize, end: usize) -> Result<(), LlmError> {
        if start > end || end > self.tokens.len() {
            return Err(LlmError::InvalidSession {
                reason: format!(
                    "cannot remove positions {start}..{end} of {}",
                    self.tokens.len()
                ),
            });
        }
        self.kv
            .remove(self.model.config(), start, end, self.tokens.len());
        self.tokens.drain(start..end);
        self.each = 0;
        Ok(())
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.each = 0;
        self.tokens.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LoadOptions;
    use crate::gguf::GgufFile;
    use crate::synth::{SynthQuant, SynthShape, synth_bytes};

    fn tiny() -> Arc<Model> {
        let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q8_0, 5).expect("synth");
        Model::from_gguf(
            GgufFile::from_bytes(bytes).expect("gguf"),
            LoadOptions::default(),
        )
        .expect("model")
    }

    fn session(model: &Arc<Model>) -> Session {
        let opts = SessionOptions {
            context: 64,
            threads: 1,
            batch: 16,
        };
        Session::new(model.clone(), opts).expect("session")
    }

    /// Layer 0's keys and values depend only on each token and its position, so after
    /// removing a span they must equal those of a session that never saw it: values exactly
    /// (moved), keys up to f16 rounding (re-rotated by the shift).
    #[test]
    fn removed_positions_leave_the_cache_of_a_session_that_never_had_them() {
        let model = tiny();
        let (a, b, c): (Vec<u32>, Vec<u32>, Vec<u32>) =
            ((1..9).collect(), (100..121).collect(), (300..317).collect());
        let mut slid = session(&model);
        slid.prefill(&[a.clone(), b.clone(), c.clone()].concat())
            .expect("prefill");
        slid.remove(a.len(), a.len() + b.len()).expect("remove");
        assert_eq!(slid.tokens(), [a.clone(), c.clone()].concat());
        let mut fresh = session(&model);
        fresh
            .prefill(&[a.clone(), c.clone()].concat())
            .expect("prefill");
        let cfg = model.config();
        let (n, cap) = (a.len() + c.len(), slid.capacity());
        let mut worst = 0f32;
        for h in 0..cfg.n_kv_heads {
            let (vs, vf) = (slid.kv.values(0, h), fresh.kv.values(0, h));
            assert_eq!(vs[..n * cfg.head_dim], vf[..n * cfg.head_dim]);
            let (ks, kf) = (slid.kv.keys_t(0, h), fresh.kv.keys_t(0, h));
            for d in 0..cfg.head_dim {
                for p in 0..n {
                    let (x, y) = (ks[d * cap + p].to_f32(), kf[d * cap + p].to_f32());
                    worst = worst.max((x - y).abs() / (1.0 + y.abs()));
                }
            }
        }
        assert!(worst < 4e-3, "re-rotated keys differ by {worst}");
        // And the session goes on from there.
        slid.decode(5).expect("decode");
        assert_eq!(slid.len(), n + 1);
        assert!(slid.remove(3, 2).is_err() && slid.remove(0, n + 2).is_err());
    }

    /// The logits after each token of a pass that runs several are those of running them one
    /// at a time (the same rows through the same kernels, up to the order of float sums), and
    /// keeping some of them leaves the session as if only those had run.
    #[test]
    fn logits_after_each_token_of_one_pass_match_one_token_at_a_time() {
        let model = tiny();
        let prompt: Vec<u32> = (10..22).collect();
        let run = [40u32, 41, 7, 300, 2];
        let mut each = session(&model);
        each.prefill(&prompt).expect("prefill");
        each.run_each(&run).expect("run each");
        assert_eq!(each.len(), prompt.len() + run.len());
        let mut one = session(&model);
        one.prefill(&prompt).expect("prefill");
        let mut worst = 0f32;
        for (i, &t) in run.iter().enumerate() {
            let l = one.decode(t).expect("decode").to_vec();
            for (x, y) in each.logits_after(i).iter().zip(&l) {
                worst = worst.max((x - y).abs() / (1.0 + y.abs()));
            }
        }
        assert!(worst < 1e-3, "logits differ by {worst}");
        // Keep two: the session goes on as one that ran only those.
        each.keep_each(2);
        assert_eq!(each.tokens(), [&prompt[..], &run[..2]].concat());
        let mut two = session(&model);
        two.prefill(&[&prompt[..], &run[..2]].concat())
            .expect("prefill");
        let close = |a: &[f32], b: &[f32]| {
            a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() <= 1e-3 * (1.0 + y.abs()))
        };
        assert!(close(each.logits(), two.logits()));
        let (a, b) = (
            each.decode(9).expect("decode").to_vec(),
            two.decode(9).expect("decode").to_vec(),
        );
        assert!(close(&a, &b));
        // No logits after tokens no pass left at the end; too many at once, or nothing, is an
        // error before any work.
        assert!(each.logits_after(0).is_empty());
        let len = each.len();
        assert!(each.run_each(&[1; Session::EACH_MAX + 1]).is_err());
        assert!(each.run_each(&[]).is_err());
        assert_eq!(each.len(), len);
    }
}
