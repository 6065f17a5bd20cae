//! Greedy parity with llama.cpp in the formats no packaged model is stored in: the SmolLM2-135M
//! asset requantized by `pocket_llm::requant` (as `pocket llm requant`) to Q4_0, Q5_0, Q5_1,
//! Q8_0, Q4_K, Q5_K and Q6_K, and a spot check of Qwen2.5-Coder-0.5B (qwen2: QKV bias, untied output) in
//! Q4_0. `make_model_golden.py` ran llama.cpp on the file the requantizer wrote and recorded
//! its sha256 with the tokens; the test requantizes again into a temporary folder, checks the
//! bytes are the same file, then runs the checks of `greedy_common`. SmolLM2's width (576) is
//! not a whole number of K-quant super-blocks, so in the K-quant files only `ffn_down` (rows
//! of 1,536) is Q4_K / Q5_K / Q6_K and the rest takes llama.cpp's fallback (Q5_0 / Q5_1 /
//! Q8_0), as llama.cpp's quantize would write it.

mod greedy_common;

use std::io::Write;

use greedy_common::{check, golden, model_path};
use pocket_llm::LoadOptions;
use pocket_llm::gguf::GgufFile;
use pocket_llm::requant::{RequantOptions, Target, requantize};
use sha2::{Digest, Sha256};

/// Prompts (of the 2 to 4 per file) whose first 32 greedy tokens must all match llama.cpp's.
/// Nearly every prompt has near-ties (margins under 0.2) somewhere in its 32 steps, so which
/// prompts match fully is down to rounding; the forced check of every clear step is the
/// strict one.
const MIN_FULL: usize = 1;

/// A file writer that hashes what it writes.
struct Hashing<W: Write> {
    out: W,
    hash: Sha256,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Requantizes the golden file's base asset as it says, checks the file is the one llama.cpp
/// ran, then runs the shared greedy checks on it.
fn parity(golden_json: &str) {
    let doc: serde_json::Value = serde_json::from_str(golden_json).expect("golden json");
    let r = &doc["requant"];
    let (asset, file) = (
        r["asset"].as_str().expect("asset"),
        r["file"].as_str().expect("file"),
    );
    let quant = r["quant"].as_str().expect("quant");
    let name = |v: &serde_json::Value| v.as_str().map(|s| Target::from_name(s).expect("format"));
    let opts = RequantOptions {
        target: name(&r["quant"]).expect("quant"),
        fallback: name(&r["fallback"]),
    };
    let src = GgufFile::open(model_path(asset, file)).expect("base model");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(format!("{asset}-{quant}.gguf"));
    let file = std::fs::File::create(&path).expect("create");
    let mut out = Hashing {
        out: std::io::BufWriter::with_capacity(1 << 20, file),
        hash: Sha256::new(),
    };
    let report = requantize(&src, &opts, &mut out).expect("requantize");
    out.flush().expect("flush");
    let sha: String = out
        .hash
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    eprintln!("{quant}: tensors {:?}", report.counts());
    assert_eq!(
        Some(sha.as_str()),
        r["sha256"].as_str(),
        "the requantizer's output changed: llama.cpp's tokens were recorded on another file \
         (rerun make_model_golden.py)"
    );
    drop(src);
    check(path, &golden(golden_json), MIN_FULL, LoadOptions::default());
}

/// One test per golden file: a new format is one more line (after make_model_golden.py has
/// recorded its file).
macro_rules! parity_tests {
    ($($test:ident: $golden:literal,)*) => {$(
        #[test]
        fn $test() {
            parity(include_str!(concat!("golden/", $golden)));
        }
    )*};
}

parity_tests! {
    smollm2_q4_0: "greedy_smollm2_q4_0.json",
    smollm2_q5_0: "greedy_smollm2_q5_0.json",
    smollm2_q5_1: "greedy_smollm2_q5_1.json",
    smollm2_q8_0: "greedy_smollm2_q8_0.json",
    smollm2_q4_k: "greedy_smollm2_q4_k.json",
    smollm2_q5_k: "greedy_smollm2_q5_k.json",
    smollm2_q6_k: "greedy_smollm2_q6_k.json",
    qwen25_q4_0: "greedy_qwen25_q4_0.json",
}
