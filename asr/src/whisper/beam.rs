//! Beam search over Whisper's decoder, as the reference decoders run it for final results
//! (OpenAI `BeamSearchDecoder`, faster-whisper's default `beam_size=5`, patience 1): each step
//! keeps the `beam` best continuations of the live hypotheses by summed log-probability; a
//! hypothesis that picks end-of-text is finished (its EOT log-probability counted); the search
//! stops once `beam` are finished, and the finished one with the best log-probability per
//! token wins. Each hypothesis has its own self-attention cache (a beam slot), and all of them
//! step together in one batched decoder pass.

use super::decode::{Decoded, Hearing, Model, mask};
use super::decoder::{DecoderState, MAX_BATCH};
use crate::error::AsrError;

/// Widest beam accepted (two slot sets of this many must fit one decoder batch).
pub const MAX_BEAM: usize = MAX_BATCH / 2;

/// One hypothesis: its text tokens, their log-probabilities and its score so far.
#[derive(Clone, Debug, Default)]
struct Hyp {
    tokens: Vec<u32>,
    logprobs: Vec<f32>,
    sum: f32,
    /// The beam slot holding its cache (live hypotheses only).
    slot: usize,
}

impl Hyp {
    fn set_from(&mut self, parent: &Hyp) {
        self.tokens.clear();
        self.tokens.extend_from_slice(&parent.tokens);
        self.logprobs.clear();
        self.logprobs.extend_from_slice(&parent.logprobs);
        self.sum = parent.sum;
    }

    /// Whisper's ranking without a length penalty: log-probability per text token.
    fn rank(&self) -> f32 {
        self.sum / self.tokens.len().max(1) as f32
    }
}

/// Beam-searches `beam` hypotheses after `prompt` (whose `sot_index` row gives the no-speech
/// probability); `beam` is clamped to `1..=MAX_BEAM`.
pub fn beam(
    m: &Model<'_>,
    st: &mut DecoderState,
    prompt: &[u32],
    sot_index: usize,
    max_tokens: usize,
    beam: usize,
) -> Result<Decoded, AsrError> {
    let Model {
        w,
        pool,
        isa,
        rules,
    } = *m;
    let vocab = w.dims.vocab;
    let k = beam.clamp(1, MAX_BEAM);
    let max_tokens = m.token_room(prompt, max_tokens);
    st.forward(w, pool, isa, prompt, &[sot_index, prompt.len() - 1])?;
    let mut out = m.started(&st.logits);
    if max_tokens == 0 {
        return Ok(out);
    }
    // Live hypotheses' caches alternate between slots 0..k and k..2k.
    st.beam_start(2 * k, prompt.len() + max_tokens + 1);
    let fresh = || Hyp {
        tokens: Vec::with_capacity(max_tokens + 1),
        logprobs: Vec::with_capacity(max_tokens + 1),
        ..Default::default()
    };
    let mut live: Vec<Hyp> = (0..k).map(|_| fresh()).collect();
    let mut next: Vec<Hyp> = (0..k).map(|_| fresh()).collect();
    let mut finished: Vec<Hyp> = (0..k).map(|_| fresh()).collect();
    let (mut n_live, mut n_finished) = (1, 0);
    // Hypothesis j's logits are row `first_row + j` (row 0 of the prompt pass is the SOT row).
    let mut first_row = 1;
    let mut scratch = vec![0f32; vocab];
    let mut candidates: Vec<(f32, usize, u32, f32)> = Vec::with_capacity(k * (k + 1));
    let mut tokens = Vec::with_capacity(k);
    let mut slots = Vec::with_capacity(k);
    let mut step = 0;
    loop {
        candidates.clear();
        for (j, h) in live[..n_live].iter().enumerate() {
            let row = &st.logits[(first_row + j) * vocab..(first_row + j + 1) * vocab];
            let max = mask(row, rules, h.tokens.is_empty(), &mut scratch);
            if !max.is_finite() {
                continue;
            }
            let lse = max + scratch.iter().map(|&v| (v - max).exp()).sum::<f32>().ln();
            top_into(&scratch, k + 1, |id, v| {
                candidates.push((h.sum + v - lse, j, id, v - lse));
            });
        }
        candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut n_next = 0;
        for &(score, j, tok, lp) in &candidates {
            if tok == rules.eot {
                if n_finished < k {
                    finished[n_finished].set_from(&live[j]);
                    finished[n_finished].sum = score;
                    n_finished += 1;
                }
            } else {
                let h = &mut next[n_next];
                h.set_from(&live[j]);
                h.tokens.push(tok);
                h.logprobs.push(lp);
                h.sum = score;
                h.slot = live[j].slot;
                n_next += 1;
                if n_next == k {
                    break;
                }
            }
        }
        step += 1;
        if n_finished >= k || n_next == 0 {
            break;
        }
        if step >= max_tokens {
            // Out of room: the live ones end here, without an end-of-text.
            for h in &next[..n_next] {
                if n_finished < k {
                    finished[n_finished].set_from(h);
                    n_finished += 1;
                }
            }
            break;
        }
        // Each continuation gets a slot of the other set, holding its parent's cache.
        let base = if live[0].slot < k { k } else { 0 };
        let cached = prompt.len() + step - 1;
        tokens.clear();
        slots.clear();
        for (i, h) in next[..n_next].iter_mut().enumerate() {
            st.beam_copy(h.slot, base + i, cached);
            h.slot = base + i;
            tokens.push(*h.tokens.last().unwrap_or(&rules.eot));
            slots.push(h.slot);
        }
        st.forward_beams(w, pool, isa, &tokens, &slots, cached)?;
        out.passes += 1;
        first_row = 0;
        std::mem::swap(&mut live, &mut next);
        n_live = n_next;
    }
    // Whisper fills up with the live hypotheses when fewer than `beam` finished.
    let mut ranked: Vec<&Hyp> = finished[..n_finished]
        .iter()
        .chain(live[..n_live].iter().filter(|_| n_finished == 0))
        .collect();
    ranked.sort_by(|a, b| b.rank().total_cmp(&a.rank()));
    if let Some(b) = ranked.first() {
        out.tokens.extend_from_slice(&b.tokens);
        out.token_logprobs.extend_from_slice(&b.logprobs);
        out.sum_logprob = b.sum;
    }
    out.others.extend(ranked.iter().skip(1).map(|h| Hearing {
        tokens: h.tokens.clone(),
        token_logprobs: h.logprobs.clone(),
        sum_logprob: h.sum,
    }));
    out.avg_logprob = out.sum_logprob / (out.tokens.len() + 1) as f32;
    Ok(out)
}

/// Calls `f(id, value)` for the `n` largest finite values of `v`, largest first.
fn top_into(v: &[f32], n: usize, mut f: impl FnMut(u32, f32)) {
    let mut top = [(f32::NEG_INFINITY, 0u32); MAX_BEAM + 1];
    let n = n.min(top.len());
    for (i, &x) in v.iter().enumerate() {
        if x > top[n - 1].0 {
            let mut at = n - 1;
            while at > 0 && top[at - 1].0 < x {
                top[at] = top[at - 1];
                at -= 1;
            }
            top[at] = (x, i as u32);
        }
    }
    for &(x, id) in &top[..n] {
        if x.is_finite() {
            f(id, x);
        }
    }
}

#[cfg(test)]
#[path = "beam_tests.rs"]
mod tests;
