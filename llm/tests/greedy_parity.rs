//! Greedy decoding reproduces llama.cpp's tokens for SmolLM2-135M Q4_1 (llama) and
//! Qwen2.5-Coder-0.5B (qwen2: QKV bias, untied output, Q5_0/Q8_0/Q4_K/Q6_K). Golden ids and
//! llama.cpp's margin of each choice over the runner-up were recorded with
//! `llm/tests/golden/make_model_golden.py` (argmax over llama.cpp's logits, flash attention
//! on, as llama.cpp picks by default). The checks, and why they allow near-ties to differ,
//! are in `greedy_common`.

mod greedy_common;

use greedy_common::{check, golden, model_path};
use pocket_assets::ids;
use pocket_llm::LoadOptions;

#[test]
fn smollm2_q4_1_greedy_matches_llama_cpp() {
    let path = model_path(ids::SMOLLM2, ids::SMOLLM2_FILE);
    check(
        path,
        &golden(include_str!("golden/greedy_smollm2.json")),
        2,
        LoadOptions::default(),
    );
}

#[test]
fn smollm2_greedy_matches_without_repacking() {
    // The row-major kernels (used where a CPU has no interleaved ones) agree as well.
    let path = model_path(ids::SMOLLM2, ids::SMOLLM2_FILE);
    let mut cases = golden(include_str!("golden/greedy_smollm2.json"));
    cases.truncate(4);
    check(
        path,
        &cases,
        1,
        LoadOptions {
            repack: false,
            ..LoadOptions::default()
        },
    );
}

#[test]
fn qwen25_coder_greedy_matches_llama_cpp() {
    let path = model_path(ids::QWEN25_CODER, ids::QWEN25_CODER_FILE);
    check(
        path,
        &golden(include_str!("golden/greedy_qwen25.json")),
        3,
        LoadOptions::default(),
    );
}
