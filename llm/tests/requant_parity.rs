//! Greedy parity with llama.cpp in the formats no packaged model is stored in: the SmolLM2-135M
//! asset requantized by `pocket_llm::requant` (as `pocket llm requant`) to Q4_0, Q5_0, Q8_0,
//! Q4_K and Q6_K. `make_model_golden.py` ran llama.cpp on the file the requantizer wrote and
//! recorded its sha256 with the tokens; the test requantizes again into a temporary folder,
//! checks the bytes are the same file, then runs the checks of `greedy_common`. SmolLM2's
//! width (576) is not a whole number of K-quant super-blocks, so in the K-quant files only
//! `ffn_down` (rows of 1,536) is Q4_K / Q6_K and the rest takes llama.cpp's fallback (Q5_0 /
//! Q8_0), as llama.cpp's quantize would write it.

mod greedy_common;

use std::io::Write;

use greedy_common::{check, golden, model_path};
use pocket_assets::ids;
use pocket_llm::LoadOptions;
use pocket_llm::gguf::GgufFile;
use pocket_llm::requant::{RequantOptions, Target, requantize};
use sha2::{Digest, Sha256};

/// Prompts (of the 4 per format) whose first 32 greedy tokens must all match llama.cpp's.
/// Every prompt has near-ties (margins under 0.2) somewhere in its 32 steps, so which prompts
/// match fully is down to rounding; the forced check of every clear step is the strict one.
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

fn parity(quant: &str, golden_json: &str) {
    let doc: serde_json::Value = serde_json::from_str(golden_json).expect("golden json");
    let r = &doc["requant"];
    assert_eq!(
        r["quant"].as_str(),
        Some(quant),
        "golden file of another format"
    );
    assert_eq!(
        (r["asset"].as_str(), r["file"].as_str()),
        (Some(ids::SMOLLM2), Some(ids::SMOLLM2_FILE)),
        "golden file of another base model"
    );
    let name = |v: &serde_json::Value| v.as_str().map(|s| Target::from_name(s).expect("format"));
    let opts = RequantOptions {
        target: name(&r["quant"]).expect("quant"),
        fallback: name(&r["fallback"]),
    };
    let src = GgufFile::open(model_path(ids::SMOLLM2, ids::SMOLLM2_FILE)).expect("base model");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(format!("smollm2-{quant}.gguf"));
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

/// One test per format: `q5_1` here (and its golden file) is all a new format needs.
macro_rules! formats {
    ($($quant:ident),*) => {$(
        #[test]
        fn $quant() {
            parity(
                stringify!($quant),
                include_str!(concat!("golden/greedy_smollm2_", stringify!($quant), ".json")),
            );
        }
    )*};
}

formats!(q4_0, q5_0, q8_0, q4_k, q6_k);
