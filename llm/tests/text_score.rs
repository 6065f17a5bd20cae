//! TextScorer on a tiny random qwen3 written by the crate's own writer: a text scored after
//! others (its shared tokens' cache reused) scores exactly as it does on a fresh scorer, the
//! sum is the sum of per-token log-probabilities taken one token at a time, and empty or
//! overlong texts get no score.

use std::sync::Arc;

use pocket_llm::gguf::GgufFile;
use pocket_llm::synth::{SynthQuant, SynthShape, synth_bytes};
use pocket_llm::{LoadOptions, Model, Session, SessionOptions, TextScorer};

fn tiny() -> Arc<Model> {
    let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q8_0, 5).expect("synth");
    Model::from_gguf(
        GgufFile::from_bytes(bytes).expect("gguf"),
        LoadOptions::default(),
    )
    .expect("model")
}

const SYSTEM: &str = "You are a test.";

fn fresh(model: &Arc<Model>, text: &str) -> f64 {
    let mut s = TextScorer::new(model.clone(), Some(SYSTEM), 1).expect("scorer");
    s.log_prob(text).expect("score").expect("some").sum
}

#[test]
fn reused_prefixes_score_as_fresh_ones() {
    let model = tiny();
    let texts = [
        "What is the boiling point of water?",
        "What is the boiling boy of water?",
        "What is the boiling point of water in Celsius?",
        "What",
        "Who wrote Romeo and Juliet?",
        "What is the boiling point of water?",
        "What is the",
    ];
    let mut one = TextScorer::new(model.clone(), Some(SYSTEM), 1).expect("scorer");
    for t in texts {
        let got = one.log_prob(t).expect("score").expect("some");
        let want = fresh(&model, t);
        assert!(
            (got.sum - want).abs() < 1e-3,
            "{t:?}: {} after other texts, {want} fresh",
            got.sum
        );
        assert!(got.sum < 0.0 && got.tokens > 1, "{t:?}: {got:?}");
    }
}

#[test]
fn the_sum_is_the_tokens_log_probabilities_one_by_one() {
    let model = tiny();
    let text = "How many legs does a spider have?";
    let mut scorer = TextScorer::new(model.clone(), Some(SYSTEM), 1).expect("scorer");
    let got = scorer.log_prob(text).expect("score").expect("some");
    // The same prompt by hand: head, then the text and the turn's end, one decode a token.
    let tok = model.tokenizer();
    let mut head = Vec::new();
    tok.encode_into(
        &format!("<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n"),
        true,
        true,
        &mut head,
    );
    let mut body = Vec::new();
    tok.encode_into(&format!("{text}<|im_end|>"), false, true, &mut body);
    assert_eq!(got.tokens, body.len());
    let mut s = Session::new(
        model.clone(),
        SessionOptions {
            context: 256,
            threads: 1,
            batch: 64,
        },
    )
    .expect("session");
    let mut logits = s.prefill(&head).expect("prefill").to_vec();
    let mut want = 0f64;
    for &id in &body {
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let lse = logits
            .iter()
            .map(|&l| f64::from(l - max).exp())
            .sum::<f64>()
            .ln();
        want += f64::from(logits[id as usize] - max) - lse;
        logits = s.decode(id).expect("decode").to_vec();
    }
    assert!((got.sum - want).abs() < 1e-3, "{} vs {want}", got.sum);
}

#[test]
fn empty_and_overlong_texts_get_no_score() {
    let model = tiny();
    let mut scorer = TextScorer::new(model, Some(SYSTEM), 1).expect("scorer");
    assert_eq!(scorer.log_prob("   ").expect("score"), None);
    let long = "word ".repeat(TextScorer::MAX_TEXT_TOKENS + 10);
    assert_eq!(scorer.log_prob(&long).expect("score"), None);
    // Still scores after refusing.
    assert!(scorer.log_prob("Hello?").expect("score").is_some());
}
