//! Greedy and beam-search decoding with Whisper's logit rules: text tokens only (special and
//! timestamp tokens suppressed, plus the model's `suppress_ids`; blank/EOT suppressed at the
//! first step), no-speech probability from the `<|nospeech|>` token at the start-of-transcript
//! position, and for greedy an optional draft (the last partial result) verified in one
//! batched pass.

use super::decoder::{DecoderState, MAX_BATCH};
use super::weights::Weights;
use crate::error::AsrError;
use crate::gemm::Isa;
use pocket_kernels::ThreadPool;

/// Token rules of one model.
#[derive(Clone, Debug)]
pub struct Rules {
    /// `true` at every id that may never be produced.
    pub suppress: Vec<bool>,
    /// Extra ids suppressed at the first sampled step (blank, EOT).
    pub suppress_begin: Vec<u32>,
    pub eot: u32,
    pub no_speech: u32,
}

/// What a decode reads: the weights, the compute pool and the token rules.
#[derive(Clone, Copy)]
pub struct Model<'a> {
    pub w: &'a Weights,
    pub pool: &'a ThreadPool,
    pub isa: Isa,
    pub rules: &'a Rules,
}

impl Model<'_> {
    /// `max_tokens` capped by the text context left after `prompt` (and its end-of-text).
    pub(super) fn token_room(&self, prompt: &[u32], max_tokens: usize) -> usize {
        max_tokens.min(self.w.dims.text_ctx.saturating_sub(prompt.len() + 1))
    }

    /// The result of a decode whose first pass left the start-of-transcript row's logits in
    /// `logits` (its no-speech probability; one pass run).
    pub(super) fn started(&self, logits: &[f32]) -> Decoded {
        Decoded {
            passes: 1,
            no_speech_prob: prob_of(&logits[..self.w.dims.vocab], self.rules.no_speech as usize),
            ..Default::default()
        }
    }
}

/// How a window's text is searched for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Search {
    /// Hypotheses of the beam search (1: greedy only).
    pub beam: usize,
    /// With `beam` > 1, greedy decoding runs first and its text is kept when every token had
    /// at least this probability; only a less sure result is searched again with the beam.
    /// 1.0 or more: always beam search; 0.0: never.
    pub greedy_min_p: f32,
}

impl Search {
    /// Greedy decoding only.
    pub const GREEDY: Search = Search {
        beam: 1,
        greedy_min_p: 0.0,
    };

    /// Beam search over `beam` hypotheses for every window.
    pub fn always_beam(beam: usize) -> Search {
        Search {
            beam,
            greedy_min_p: 1.0,
        }
    }
}

/// Result of decoding one window.
#[derive(Clone, Debug, Default)]
pub struct Decoded {
    /// Text tokens (EOT excluded).
    pub tokens: Vec<u32>,
    /// Log-probability of each text token: how sure the model was of each step.
    pub token_logprobs: Vec<f32>,
    pub sum_logprob: f32,
    /// `sum_logprob / (tokens + 1)` as Whisper computes it.
    pub avg_logprob: f32,
    pub no_speech_prob: f32,
    /// Draft tokens accepted without a sequential step.
    pub draft_accepted: usize,
    /// Decoder passes run (1 for the prompt + one per sequential step).
    pub passes: usize,
    /// Whether beam search produced the text.
    pub beam_searched: bool,
    /// The beam's other finished hypotheses, likeliest (per token) first; empty after greedy.
    pub others: Vec<Hearing>,
}

/// One other hypothesis of a beam search.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hearing {
    /// Text tokens (EOT excluded).
    pub tokens: Vec<u32>,
    /// Log-probability of each text token.
    pub token_logprobs: Vec<f32>,
    /// Summed log-probability, its end-of-text included when it finished.
    pub sum_logprob: f32,
}

impl Decoded {
    /// Probability of the least likely text token (1.0 without tokens).
    pub fn min_token_prob(&self) -> f32 {
        self.token_logprobs
            .iter()
            .fold(0f32, |a, &b| a.min(b))
            .exp()
    }
}

/// Greedy-decodes after `prompt` (whose `sot_index` row gives the no-speech probability).
pub fn greedy(
    m: &Model<'_>,
    st: &mut DecoderState,
    prompt: &[u32],
    sot_index: usize,
    draft: &[u32],
    max_tokens: usize,
) -> Result<Decoded, AsrError> {
    let Model {
        w,
        pool,
        isa,
        rules,
    } = *m;
    let vocab = w.dims.vocab;
    let max_tokens = m.token_room(prompt, max_tokens);
    // First pass: prompt + as much of the draft as fits, logits from the SOT row and from the
    // last prompt row onwards.
    let draft = &draft[..draft.len().min(max_tokens).min(MAX_BATCH - prompt.len())];
    let mut batch: Vec<u32> = Vec::with_capacity(prompt.len() + draft.len());
    batch.extend_from_slice(prompt);
    batch.extend_from_slice(draft);
    let mut rows = vec![sot_index];
    rows.extend(prompt.len() - 1..batch.len());
    st.forward(w, pool, isa, &batch, &rows)?;
    let mut out = m.started(&st.logits);
    let mut scratch = vec![0f32; vocab];
    // Walk the verified rows: row i predicts the token after prompt + draft[..i].
    let mut next = None;
    for i in 0..=draft.len() {
        let logits = &st.logits[(i + 1) * vocab..(i + 2) * vocab];
        let (tok, lp) = pick(logits, rules, out.tokens.is_empty(), &mut scratch);
        out.sum_logprob += lp;
        if i < draft.len() && tok == draft[i] {
            out.tokens.push(tok);
            out.token_logprobs.push(lp);
            out.draft_accepted += 1;
            continue;
        }
        // Divergence (or draft exhausted): rewind the cache to the accepted prefix.
        st.pos = prompt.len() + i;
        next = Some((tok, lp));
        break;
    }
    while let Some((tok, tok_lp)) = next.take() {
        if tok == rules.eot || out.tokens.len() >= max_tokens {
            break;
        }
        out.tokens.push(tok);
        out.token_logprobs.push(tok_lp);
        st.forward(w, pool, isa, &[tok], &[0])?;
        out.passes += 1;
        let (t, lp) = pick(&st.logits[..vocab], rules, false, &mut scratch);
        out.sum_logprob += lp;
        next = Some((t, lp));
    }
    out.avg_logprob = out.sum_logprob / (out.tokens.len() + 1) as f32;
    Ok(out)
}

/// Softmax probability of one id over raw logits.
pub(super) fn prob_of(logits: &[f32], id: usize) -> f32 {
    let max = logits.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let sum: f32 = logits.iter().map(|&v| (v - max).exp()).sum();
    logits.get(id).map_or(0.0, |&v| (v - max).exp() / sum)
}

/// Copies `logits` into `out` with the suppression rules applied (`-inf` at every id that may
/// not come next) and returns the largest value left.
pub(super) fn mask(logits: &[f32], rules: &Rules, first: bool, out: &mut [f32]) -> f32 {
    out.copy_from_slice(logits);
    for (v, &s) in out.iter_mut().zip(&rules.suppress) {
        if s || !v.is_finite() {
            *v = f32::NEG_INFINITY;
        }
    }
    if first {
        for &id in &rules.suppress_begin {
            if let Some(v) = out.get_mut(id as usize) {
                *v = f32::NEG_INFINITY;
            }
        }
    }
    out.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b))
}

/// Applies the suppression rules and returns the argmax and its log-probability.
fn pick(logits: &[f32], rules: &Rules, first: bool, scratch: &mut [f32]) -> (u32, f32) {
    let max = mask(logits, rules, first, scratch);
    if !max.is_finite() {
        return (rules.eot, 0.0);
    }
    let best = scratch
        .iter()
        .position(|&v| v == max)
        .unwrap_or(rules.eot as usize);
    let sum: f32 = scratch.iter().map(|&v| (v - max).exp()).sum();
    (best as u32, -sum.ln())
}
