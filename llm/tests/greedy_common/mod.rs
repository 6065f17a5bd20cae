//! Greedy parity with llama.cpp, shared by the model tests: golden files (llama.cpp's greedy
//! tokens and margins, recorded by `llm/tests/golden/make_model_golden.py`) and the check.
//!
//! Two correct engines round differently, and 8-bit activation quantization amplifies that
//! to logit differences of up to about one (llama.cpp's own flash-attention and plain paths
//! differ by up to 1.6 on these models), so where llama.cpp's choice is a near-tie the greedy
//! path is implementation-defined. Checks:
//! * every prompt, llama.cpp's tokens forced: at each of the first 32 steps whose margin is
//!   at least `CLEAR_MARGIN`, we pick the same token;
//! * on at least `min_full` of the prompts the first 32 greedy tokens are all identical (which
//!   prompts depends on where their near-ties fall; each run prints them).

use std::path::PathBuf;

use pocket_assets::Store;
use pocket_llm::{LoadOptions, Model, Session, SessionOptions};

const STEPS: usize = 32;
/// A choice llama.cpp makes by at least this logit margin must be ours too.
const CLEAR_MARGIN: f32 = 1.0;

pub struct Case {
    pub prompt: String,
    pub tokens: Vec<u32>,
    pub margins: Vec<f32>,
}

pub fn golden(text: &str) -> Vec<Case> {
    let v: serde_json::Value = serde_json::from_str(text).expect("golden json");
    v["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| Case {
            prompt: c["prompt"].as_str().expect("prompt").to_string(),
            tokens: serde_json::from_value(c["tokens"].clone()).expect("tokens"),
            margins: serde_json::from_value(c["margins"].clone()).expect("margins"),
        })
        .collect()
}

pub fn model_path(id: &str, file: &str) -> PathBuf {
    Store::open_default()
        .expect("asset store")
        .require_file(id, file)
        .expect("model installed")
}

fn argmax(v: &[f32]) -> u32 {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best as u32
}

/// Runs every case with llama.cpp's tokens forced; returns per case the steps where our
/// argmax differs, as (step, llama.cpp margin).
fn forced(model: &std::sync::Arc<Model>, cases: &[Case]) -> Vec<Vec<(usize, f32)>> {
    let mut s = Session::new(
        model.clone(),
        SessionOptions {
            context: 512,
            threads: 2,
            batch: 64,
        },
    )
    .expect("session");
    cases
        .iter()
        .map(|case| {
            s.clear();
            let prompt = model.tokenizer().encode(&case.prompt, false);
            let mut logits = s.prefill(&prompt).expect("prefill").to_vec();
            let mut diffs = Vec::new();
            for step in 0..STEPS {
                if argmax(&logits) != case.tokens[step] {
                    diffs.push((step, case.margins[step]));
                }
                logits = s.decode(case.tokens[step]).expect("decode").to_vec();
            }
            diffs
        })
        .collect()
}

pub fn check(path: PathBuf, cases: &[Case], min_full: usize, opts: LoadOptions) {
    let model = Model::load_with(&path, opts).expect("load");
    let diffs = forced(&model, cases);
    let mut failures = Vec::new();
    for (i, d) in diffs.iter().enumerate() {
        eprintln!("case {i}: differs from llama.cpp at (step, margin) {d:?}");
        if let Some(&(step, margin)) = d.iter().find(|&&(_, m)| m >= CLEAR_MARGIN) {
            failures.push(format!(
                "case {i}: step {step} differs though llama.cpp's margin is {margin}"
            ));
        }
    }
    let full: Vec<usize> = (0..diffs.len()).filter(|&i| diffs[i].is_empty()).collect();
    eprintln!("prompts whose first {STEPS} greedy tokens all match: {full:?}");
    if full.len() < min_full {
        failures.push(format!(
            "only {} prompts match all {STEPS} tokens, want {min_full}",
            full.len()
        ));
    }
    assert!(
        failures.is_empty(),
        "{}: {failures:#?}\nprompts: {:?}",
        path.display(),
        cases.iter().map(|c| &c.prompt).collect::<Vec<_>>()
    );
}
