//! Token sampling: greedy, or repetition penalty -> top-k -> top-p -> min-p -> temperature
//! -> a seeded random draw (llama.cpp's default chain order), optionally never repeating an
//! n-gram of a reference text (the previous reply). Buffers are allocated once per sampler
//! (and per reference), so sampling a token allocates nothing.

use crate::LlmError;

/// Sampling settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplerConfig {
    /// Softmax temperature; `<= 0` means greedy (argmax after the repetition penalty).
    pub temperature: f32,
    /// Keep the `top_k` most likely tokens; 0 keeps all (slower: the whole vocabulary is
    /// sorted when `top_p < 1`).
    pub top_k: usize,
    /// Keep the smallest set of most likely tokens whose probability reaches `top_p`
    /// (1 = off).
    pub top_p: f32,
    /// Drop tokens less likely than `min_p` times the most likely one (0 = off).
    pub min_p: f32,
    /// Divide positive logits (multiply negative ones) of recently seen tokens by this
    /// (1 = off).
    pub repeat_penalty: f32,
    /// How many recent tokens the repetition penalty looks at.
    pub repeat_last_n: usize,
    /// Seed of the random draw.
    pub seed: u64,
}

impl Default for SamplerConfig {
    /// llama.cpp's defaults: temperature 0.8, top-k 40, top-p 0.95, min-p 0.05, no
    /// repetition penalty (window 64).
    fn default() -> Self {
        Self {
            temperature: 0.8,
            top_k: 40,
            top_p: 0.95,
            min_p: 0.05,
            repeat_penalty: 1.0,
            repeat_last_n: 64,
            seed: 0x5EED,
        }
    }
}

impl SamplerConfig {
    /// Argmax decoding (what the greedy parity tests use).
    pub fn greedy() -> Self {
        Self {
            temperature: 0.0,
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            repeat_penalty: 1.0,
            ..Self::default()
        }
    }

    /// Checks every setting is in range.
    pub fn validate(&self) -> Result<(), LlmError> {
        let bad = |reason: String| Err(LlmError::InvalidSampler { reason });
        if !self.temperature.is_finite() {
            return bad(format!("temperature {} is not finite", self.temperature));
        }
        if !(self.top_p > 0.0 && self.top_p <= 1.0) {
            return bad(format!("top_p {} is outside (0, 1]", self.top_p));
        }
        if !(0.0..1.0).contains(&self.min_p) {
            return bad(format!("min_p {} is outside [0, 1)", self.min_p));
        }
        if !(self.repeat_penalty.is_finite() && self.repeat_penalty > 0.0) {
            return bad(format!(
                "repeat_penalty {} must be a positive number",
                self.repeat_penalty
            ));
        }
        if self.repeat_last_n > 1 << 20 {
            return bad(format!(
                "repeat_last_n {} is unreasonably large",
                self.repeat_last_n
            ));
        }
        Ok(())
    }
}

/// xoshiro256** seeded through splitmix64: small, fast, reproducible.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator whose stream depends only on `seed`.
    pub fn new(seed: u64) -> Self {
        let mut split = pocket_stats::Rng::new(seed);
        Self {
            s: [
                split.next_u64(),
                split.next_u64(),
                split.next_u64(),
                split.next_u64(),
            ],
        }
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// A sampler for one generation stream (one per session).
#[derive(Debug, Clone)]
pub struct Sampler {
    cfg: SamplerConfig,
    rng: Rng,
    vocab_size: usize,
    /// `(logit, token)` candidates, capacity `vocab_size`.
    cand: Vec<(f32, u32)>,
    /// Ring buffer of the last `repeat_last_n` accepted tokens.
    recent: Vec<u32>,
    recent_head: usize,
    /// `stamp[t] == generation` marks `t` as penalized for the current call.
    stamp: Vec<u32>,
    generation: u32,
    /// The text whose `avoid_n`-grams may not be repeated (0: no such rule).
    avoid: Vec<u32>,
    avoid_n: usize,
    /// No n-gram holding one of these tokens is banned (sorted).
    avoid_except: Vec<u32>,
    /// The last `avoid_n - 1` tokens accepted since [`avoid_ngrams_of`](Self::avoid_ngrams_of).
    tail: Vec<u32>,
    /// Openings a reply may not start with ([`avoid_openings`](Self::avoid_openings)), one
    /// after another; `opening_ends[k]` is where the k-th ends.
    openings: Vec<u32>,
    opening_ends: Vec<usize>,
    /// Per opening: every reply token so far matched it.
    opening_alive: Vec<bool>,
    /// Tokens accepted since `avoid_openings`.
    reply_len: usize,
    /// Tokens the rules ban at this step.
    banned: Vec<u32>,
}

impl Sampler {
    /// A sampler for logits over `vocab_size` tokens.
    pub fn new(cfg: SamplerConfig, vocab_size: usize) -> Result<Self, LlmError> {
        cfg.validate()?;
        if vocab_size == 0 || vocab_size > u32::MAX as usize {
            return Err(LlmError::InvalidSampler {
                reason: format!("vocabulary size {vocab_size}"),
            });
        }
        let penalize = cfg.repeat_penalty != 1.0 && cfg.repeat_last_n > 0;
        Ok(Self {
            cfg,
            rng: Rng::new(cfg.seed),
            vocab_size,
            cand: Vec::with_capacity(if cfg.temperature > 0.0 { vocab_size } else { 0 }),
            recent: Vec::with_capacity(cfg.repeat_last_n),
            recent_head: 0,
            stamp: if penalize {
                vec![0; vocab_size]
            } else {
                Vec::new()
            },
            generation: 0,
            avoid: Vec::new(),
            avoid_n: 0,
            avoid_except: Vec::new(),
            tail: Vec::new(),
            openings: Vec::new(),
            opening_ends: Vec::new(),
            opening_alive: Vec::new(),
            reply_len: 0,
            banned: Vec::new(),
        })
    }

    /// From now until [`reset`](Self::reset), never picks a token that would repeat an
    /// `n`-gram of `reference` (n >= 2) in the tokens accepted after this call: a small model
    /// in a conversation otherwise copies its previous reply ("The answer for this question
    /// would depend on ..." to every question). `n` 0 or 1 turns the rule off. An n-gram that
    /// holds a token of `except` is never banned: pass the number tokens, since a number's
    /// digits and the word after it are facts, not phrasing (banned, they turned "A decade is
    /// 10 years." after "A century is 100 years." into "12 years", and into the glued
    /// "10years" after a reply with "10 years").
    pub fn avoid_ngrams_of(&mut self, reference: &[u32], n: usize, except: &[u32]) {
        self.avoid.clear();
        self.tail.clear();
        self.avoid_except.clear();
        self.avoid_n = if n >= 2 && reference.len() >= n { n } else { 0 };
        if self.avoid_n > 0 {
            self.avoid.extend_from_slice(reference);
            self.avoid_except.extend_from_slice(except);
            self.avoid_except.sort_unstable();
            self.avoid_except.dedup();
            self.banned.reserve(reference.len());
            self.tail.reserve(n);
        }
    }

    /// From now until [`reset`](Self::reset), the tokens accepted after this call never start
    /// with one of `openings` in full: the last token of an opening is banned while the reply so
    /// far is the rest of it. For the user's own first words: a model that echoes a misheard
    /// question ("which far man will give us as well." -> "Which far man will give us as
    /// well?") then echoes the next, well-heard questions too, from its own example in the
    /// history (eight turns in a row in one spoken session).
    ///
    /// `openings` holds them one after another, `ends[k]` where the k-th ends (ascending).
    pub fn avoid_openings(&mut self, openings: &[u32], ends: &[usize]) {
        self.openings.clear();
        self.opening_ends.clear();
        let mut start = 0;
        for &end in ends {
            // An empty opening (or one out of order) is nothing to avoid.
            if end > start && end <= openings.len() {
                self.openings.extend_from_slice(&openings[start..end]);
                self.opening_ends.push(self.openings.len());
                start = end;
            }
        }
        self.opening_alive.clear();
        self.opening_alive.resize(self.opening_ends.len(), true);
        self.reply_len = 0;
    }

    /// Fills `banned` with the tokens the rules ban at this step.
    fn fill_bans(&mut self) -> bool {
        self.banned.clear();
        self.ban_copies();
        let mut start = 0;
        for (&end, &alive) in self.opening_ends.iter().zip(&self.opening_alive) {
            if alive && end - start == self.reply_len + 1 {
                self.banned.push(self.openings[end - 1]);
            }
            start = end;
        }
        !self.banned.is_empty()
    }

    /// Adds to `banned` the tokens that would complete a reference n-gram now.
    fn ban_copies(&mut self) {
        let n = self.avoid_n;
        if n == 0 || self.tail.len() < n - 1 {
            return;
        }
        let exempt = |t: &u32| self.avoid_except.binary_search(t).is_ok();
        if self.tail.iter().any(exempt) {
            return;
        }
        for w in self.avoid.windows(n) {
            if w[..n - 1] == self.tail[..] && !exempt(&w[n - 1]) {
                self.banned.push(w[n - 1]);
            }
        }
    }

    /// The settings.
    pub fn config(&self) -> &SamplerConfig {
        &self.cfg
    }

    /// Records a token of the context (prompt or generated) for the repetition penalty.
    pub fn accept(&mut self, token: u32) {
        let mut start = 0;
        for (&end, alive) in self.opening_ends.iter().zip(&mut self.opening_alive) {
            let at = start + self.reply_len;
            *alive = *alive && at < end && self.openings[at] == token;
            start = end;
        }
        self.reply_len = self.reply_len.saturating_add(1);
        if self.avoid_n > 0 {
            if self.tail.len() == self.avoid_n - 1 {
                self.tail.remove(0);
            }
            self.tail.push(token);
        }
        let n = self.cfg.repeat_last_n;
        if n == 0 {
            return;
        }
        if self.recent.len() < n {
            self.recent.push(token);
        } else {
            self.recent[self.recent_head] = token;
            self.recent_head = (self.recent_head + 1) % n;
        }
    }

    /// Forgets the recent tokens and restarts the random stream from the seed.
    pub fn reset(&mut self) {
        self.recent.clear();
        self.recent_head = 0;
        self.avoid_ngrams_of(&[], 0, &[]);
        self.avoid_openings(&[], &[]);
        self.rng = Rng::new(self.cfg.seed);
    }

    /// Restarts the random stream from `seed`.
    pub fn reseed(&mut self, seed: u64) {
        self.cfg.seed = seed;
        self.rng = Rng::new(seed);
    }

    /// Picks the next token from `logits` (one per vocabulary entry). NaN logits are never
    /// picked. Does not record the token: call [`accept`](Self::accept) with it.
    pub fn sample(&mut self, logits: &[f32]) -> Result<u32, LlmError> {
        if logits.len() != self.vocab_size {
            return Err(LlmError::InvalidSampler {
                reason: format!(
                    "{} logits for a vocabulary of {}",
                    logits.len(),
                    self.vocab_size
                ),
            });
        }
        let penalize = self.mark_recent();
        let ban = self.fill_bans();
        let banned = &self.banned;
        let penalty = self.cfg.repeat_penalty;
        let value = |stamp: &[u32], generation: u32, i: usize, l: f32| -> f32 {
            let l = if l.is_nan() || (ban && banned.contains(&(i as u32))) {
                f32::NEG_INFINITY
            } else {
                l
            };
            if penalize && stamp[i] == generation {
                penalized(l, penalty)
            } else {
                l
            }
        };
        if self.cfg.temperature <= 0.0 {
            let mut best = (f32::NEG_INFINITY, 0u32);
            for (i, &l) in logits.iter().enumerate() {
                let v = value(&self.stamp, self.generation, i, l);
                if v > best.0 {
                    best = (v, i as u32);
                }
            }
            return Ok(best.1);
        }
        self.cand.clear();
        let (stamp, generation) = (&self.stamp, self.generation);
        self.cand.extend(
            logits
                .iter()
                .enumerate()
                .map(|(i, &l)| (value(stamp, generation, i, l), i as u32)),
        );
        Ok(self.draw())
    }

    /// Marks the distinct recent tokens in `stamp`; false if no penalty applies.
    fn mark_recent(&mut self) -> bool {
        if self.stamp.is_empty() || self.recent.is_empty() {
            return false;
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 1;
        }
        for &t in &self.recent {
            if let Some(s) = self.stamp.get_mut(t as usize) {
                *s = self.generation;
            }
        }
        true
    }

    /// top-k, top-p, min-p, temperature and the draw over `self.cand`. Only top-p needs
    /// the candidates sorted; top-k is a partial selection and min-p a linear filter.
    fn draw(&mut self) -> u32 {
        let desc = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        let cand = &mut self.cand;
        let k = self.cfg.top_k;
        if k > 0 && k < cand.len() {
            cand.select_nth_unstable_by(k - 1, desc);
            cand.truncate(k);
        }
        let max = cand.iter().fold(f32::NEG_INFINITY, |m, c| m.max(c.0));
        if max == f32::NEG_INFINITY {
            return cand[0].1;
        }
        // top-p over the softmax (temperature 1) of what is left.
        if self.cfg.top_p < 1.0 {
            cand.sort_unstable_by(desc);
            let sum: f64 = cand.iter().map(|c| f64::from(c.0 - max).exp()).sum();
            let target = f64::from(self.cfg.top_p) * sum;
            let mut cum = 0.0;
            let mut keep = cand.len();
            for (i, c) in cand.iter().enumerate() {
                cum += f64::from(c.0 - max).exp();
                if cum >= target {
                    keep = i + 1;
                    break;
                }
            }
            cand.truncate(keep);
        }
        // min-p: p >= min_p * p_max  <=>  logit >= max + ln(min_p); the max always stays.
        if self.cfg.min_p > 0.0 {
            let floor = max + self.cfg.min_p.ln();
            cand.retain(|c| c.0 >= floor);
        }
        let inv_t = 1.0 / f64::from(self.cfg.temperature);
        let sum: f64 = cand
            .iter()
            .map(|c| (f64::from(c.0 - max) * inv_t).exp())
            .sum();
        let mut r = self.rng.next_f64() * sum;
        for c in cand.iter() {
            r -= (f64::from(c.0 - max) * inv_t).exp();
            if r < 0.0 {
                return c.1;
            }
        }
        cand[cand.len() - 1].1
    }
}

fn penalized(l: f32, penalty: f32) -> f32 {
    if l > 0.0 { l / penalty } else { l * penalty }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logits_of(probs: &[f32]) -> Vec<f32> {
        probs.iter().map(|p| p.ln()).collect()
    }

    fn counts(cfg: SamplerConfig, logits: &[f32], n: usize) -> Vec<usize> {
        let mut s = Sampler::new(cfg, logits.len()).expect("config");
        let mut c = vec![0; logits.len()];
        for _ in 0..n {
            c[s.sample(logits).expect("sample") as usize] += 1;
        }
        c
    }

    fn sampling(temperature: f32) -> SamplerConfig {
        SamplerConfig {
            temperature,
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            ..SamplerConfig::default()
        }
    }

    #[test]
    fn greedy_is_argmax_first_on_ties() {
        let mut s = Sampler::new(SamplerConfig::greedy(), 5).expect("config");
        assert_eq!(s.sample(&[0.1, 2.0, -1.0, 2.0, f32::NAN]).expect("ok"), 1);
        assert_eq!(
            s.sample(&[f32::NAN, f32::NAN, -5.0, f32::NEG_INFINITY, -6.0])
                .expect("ok"),
            2
        );
        assert!(s.sample(&[0.0; 4]).is_err(), "wrong logit count");
    }

    #[test]
    fn no_ngram_of_the_reference_is_repeated() {
        for cfg in [SamplerConfig::greedy(), sampling(0.5)] {
            let mut s = Sampler::new(cfg, 5).expect("config");
            // Token 3 is by far the likeliest everywhere.
            let logits = [0.0, 0.0, 0.0, 9.0, 1.0];
            s.accept(3); // a prompt token: before the rule, not part of the reply
            s.avoid_ngrams_of(&[0, 3, 1, 3, 4], 2, &[]);
            assert_eq!(s.sample(&logits).expect("ok"), 3, "nothing to continue yet");
            s.accept(3);
            // After 3, the reference went on with 1 and 4: 3 is still allowed.
            assert_eq!(s.sample(&logits).expect("ok"), 3);
            s.accept(0);
            // After 0 came 3: banned, so the next likeliest, 4.
            assert_eq!(s.sample(&logits).expect("ok"), 4);
            s.reset();
            s.accept(0);
            assert_eq!(s.sample(&logits).expect("ok"), 3, "reset ends the rule");
        }
        // A reference shorter than n, or n < 2, bans nothing.
        let mut s = Sampler::new(SamplerConfig::greedy(), 5).expect("config");
        s.avoid_ngrams_of(&[0], 2, &[]);
        s.accept(0);
        assert_eq!(s.sample(&[0.0, 0.0, 0.0, 9.0, 1.0]).expect("ok"), 3);
    }

    /// Logits over 6 tokens: `t` far ahead, then 5.
    fn top(t: usize) -> [f32; 6] {
        let mut l = [0.0; 6];
        l[t] = 9.0;
        l[5] = 1.0;
        l
    }

    #[test]
    fn a_reply_never_opens_with_an_avoided_opening() {
        let mut s = Sampler::new(SamplerConfig::greedy(), 6).expect("config");
        s.accept(1); // a prompt token: before the rule
        s.avoid_openings(&[1, 2, 3, 4, 2, 0], &[3, 6]);
        assert_eq!(
            s.sample(&top(1)).expect("ok"),
            1,
            "one token is no opening yet"
        );
        s.accept(1);
        assert_eq!(s.sample(&top(2)).expect("ok"), 2);
        s.accept(2);
        // 1 2 3 is avoided (4 2 0 stopped matching at the first token).
        assert_eq!(s.sample(&top(3)).expect("ok"), 5);
        assert_eq!(s.sample(&top(0)).expect("ok"), 0);
        s.accept(0);
        s.accept(3);
        assert_eq!(s.sample(&top(3)).expect("ok"), 3, "later, 3 is free again");
        // The other opening, and a reply that leaves an opening early.
        s.avoid_openings(&[1, 2, 3, 4, 2, 0], &[3, 6]);
        s.accept(4);
        s.accept(2);
        assert_eq!(s.sample(&top(0)).expect("ok"), 5);
        s.avoid_openings(&[1, 2, 3], &[3]);
        s.accept(1);
        s.accept(4);
        s.accept(2);
        assert_eq!(s.sample(&top(3)).expect("ok"), 3);
        s.reset();
        s.accept(1);
        s.accept(2);
        assert_eq!(s.sample(&top(3)).expect("ok"), 3, "reset ends the rule");
    }

    #[test]
    fn no_ngram_holding_an_excepted_token_is_banned() {
        let mut s = Sampler::new(SamplerConfig::greedy(), 6).expect("config");
        // Reference 0 1 2 | 0 3 4 with n = 3; token 1 (a digit, say) is excepted.
        s.avoid_ngrams_of(&[0, 1, 2, 3, 0, 3, 4], 3, &[1, 2]);
        s.accept(0);
        assert_eq!(
            s.sample(&top(1)).expect("ok"),
            1,
            "0 1 is no whole 3-gram yet"
        );
        s.accept(1);
        // 0 1 2 is in the reference, but it holds 1 (and 2): allowed.
        assert_eq!(s.sample(&top(2)).expect("ok"), 2);
        s.accept(0);
        s.accept(3);
        // 0 3 4 holds nothing excepted: banned, so the next likeliest.
        assert_eq!(s.sample(&top(4)).expect("ok"), 5);
        // A new rule forgets the old exceptions.
        s.avoid_ngrams_of(&[0, 1, 2], 3, &[]);
        s.accept(0);
        s.accept(1);
        assert_eq!(s.sample(&top(2)).expect("ok"), 5);
    }

    #[test]
    fn repetition_penalty_uses_the_window() {
        let cfg = SamplerConfig {
            repeat_penalty: 2.0,
            repeat_last_n: 2,
            ..SamplerConfig::greedy()
        };
        let mut s = Sampler::new(cfg, 4).expect("config");
        let logits = [3.0, 2.0, -1.0, -1.5];
        assert_eq!(s.sample(&logits).expect("ok"), 0);
        s.accept(0);
        assert_eq!(s.sample(&logits).expect("ok"), 1, "3/2 < 2");
        s.accept(1);
        s.accept(2);
        assert_eq!(s.sample(&logits).expect("ok"), 0, "0 left the window of 2");
        s.accept(0);
        s.accept(1);
        // Negative logits are multiplied: -1 -> -2 for token 2 (outside window now: 0, 1).
        assert_eq!(s.sample(&[-1.0, -1.0, -1.2, -3.0]).expect("ok"), 2);
    }

    #[test]
    fn same_seed_same_stream() {
        let logits: Vec<f32> = (0..1000).map(|i| ((i * 37 % 101) as f32) / 20.0).collect();
        let run = |seed| {
            let mut s = Sampler::new(
                SamplerConfig {
                    seed,
                    ..SamplerConfig::default()
                },
                1000,
            )
            .expect("config");
            (0..50)
                .map(|_| s.sample(&logits).expect("ok"))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let mut s = Sampler::new(
            SamplerConfig {
                seed: 7,
                ..SamplerConfig::default()
            },
            1000,
        )
        .expect("config");
        let first: Vec<u32> = (0..50).map(|_| s.sample(&logits).expect("ok")).collect();
        s.reset();
        let again: Vec<u32> = (0..50).map(|_| s.sample(&logits).expect("ok")).collect();
        assert_eq!(first, again);
    }

    #[test]
    fn temperature_follows_the_softmax() {
        let probs = [0.5, 0.3, 0.15, 0.05];
        let c = counts(sampling(1.0), &logits_of(&probs), 20_000);
        for (n, p) in c.iter().zip(probs) {
            let f = *n as f32 / 20_000.0;
            assert!((f - p).abs() < 0.015, "{c:?}");
        }
        // Low temperature sharpens toward the argmax, high flattens.
        let cold = counts(sampling(0.2), &logits_of(&probs), 5000);
        // p^5 normalized: 0.926 for the first token.
        assert!((4500..4760).contains(&cold[0]), "{cold:?}");
        let hot = counts(sampling(5.0), &logits_of(&probs), 5000);
        assert!(hot[3] > 700, "{hot:?}");
    }

    #[test]
    fn top_k_top_p_min_p_cut_the_tail() {
        let l = logits_of(&[0.5, 0.3, 0.15, 0.05]);
        let only = |c: &[usize], n: usize| {
            c.iter().skip(n).all(|&x| x == 0) && c.iter().take(n).all(|&x| x > 0)
        };
        let with = |f: fn(&mut SamplerConfig)| {
            let mut c = sampling(1.0);
            f(&mut c);
            c
        };
        // (settings, draws, tokens that may come up)
        let cases = [
            (with(|c| c.top_k = 1), 500, 1),
            (with(|c| c.top_k = 2), 2000, 2),
            // 0.5 < 0.7 <= 0.8: two tokens; 0.95 needs three.
            (with(|c| c.top_p = 0.7), 2000, 2),
            (with(|c| c.top_p = 0.95), 4000, 3),
            // min-p 0.25: p >= 0.125 keeps three; 0.7 keeps only the first.
            (with(|c| c.min_p = 0.25), 4000, 3),
            (with(|c| c.min_p = 0.7), 500, 1),
            // top-p is computed after top-k: over {0.5, 0.3} renormalized, 0.6 keeps one.
            (
                with(|c| {
                    c.top_k = 2;
                    c.top_p = 0.6;
                }),
                500,
                1,
            ),
        ];
        for (config, draws, kept) in cases {
            let seen = counts(config, &l, draws);
            assert!(only(&seen, kept), "{config:?}: {seen:?}");
        }
        // All-NaN logits still give a valid token.
        let mut s = Sampler::new(sampling(1.0), 3).expect("config");
        assert!(s.sample(&[f32::NAN; 3]).expect("ok") < 3);
    }

    #[test]
    fn bad_settings_are_rejected() {
        let bad = [
            SamplerConfig {
                top_p: 0.0,
                ..SamplerConfig::default()
            },
            SamplerConfig {
                top_p: 1.5,
                ..SamplerConfig::default()
            },
            SamplerConfig {
                min_p: 1.0,
                ..SamplerConfig::default()
            },
            SamplerConfig {
                repeat_penalty: 0.0,
                ..SamplerConfig::default()
            },
            SamplerConfig {
                temperature: f32::NAN,
                ..SamplerConfig::default()
            },
        ];
        for cfg in bad {
            assert!(
                matches!(Sampler::new(cfg, 10), Err(LlmError::InvalidSampler { .. })),
                "{cfg:?}"
            );
        }
        assert!(Sampler::new(SamplerConfig::default(), 0).is_err());
    }

    #[test]
    fn sampling_does_not_grow_buffers() {
        let logits: Vec<f32> = (0..5000).map(|i| (i % 97) as f32 * 0.1).collect();
        let mut s = Sampler::new(
            SamplerConfig {
                repeat_penalty: 1.1,
                ..SamplerConfig::default()
            },
            5000,
        )
        .expect("config");
        let caps = (s.cand.capacity(), s.recent.capacity());
        for i in 0..200 {
            let t = s.sample(&logits).expect("ok");
            s.accept(t ^ i);
        }
        assert_eq!((s.cand.capacity(), s.recent.capacity()), caps);
    }
}
