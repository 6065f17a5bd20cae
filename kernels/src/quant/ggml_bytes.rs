//! The K-quant quantizers against bytes GGML's own reference quantizers wrote for the same
//! values (`testdata/ggml_k_blocks.txt`, recorded by `testdata/make_ggml_blocks.py`).

use super::{BlockQ4K, BlockQ5K, BlockQ6K, Quantize, block_bytes};

/// Bytes of a lowercase hex string.
fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// One recorded block: its 256 inputs and, per format, the bytes ggml wrote.
struct Case {
    name: String,
    x: Vec<f32>,
    ggml: Vec<(String, Vec<u8>)>,
}

/// The recorded cases, in file order.
fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in include_str!("testdata/ggml_k_blocks.txt").lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let (tag, rest) = line.split_once(' ').expect("tag");
        if tag == "x" {
            let (name, hex) = rest.split_once(' ').expect("name");
            let x: Vec<f32> = unhex(hex)
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            assert_eq!(x.len(), 256, "{name}");
            cases.push(Case {
                name: name.to_string(),
                x,
                ggml: Vec::new(),
            });
        } else {
            let case = cases.last_mut().expect("an x line first");
            case.ggml.push((tag.to_string(), unhex(rest)));
        }
    }
    cases
}

/// Our bytes for one block of `x` in `format`.
fn ours(format: &str, x: &[f32]) -> Vec<u8> {
    match format {
        "q4_k" => block_bytes(&[BlockQ4K::quantize(x)]).to_vec(),
        "q5_k" => block_bytes(&[BlockQ5K::quantize(x)]).to_vec(),
        "q6_k" => block_bytes(&[BlockQ6K::quantize(x)]).to_vec(),
        other => panic!("no quantizer for {other}"),
    }
}

#[test]
fn k_quants_give_ggml_reference_bytes() {
    let cases = cases();
    assert!(cases.len() >= 10, "{} cases", cases.len());
    let mut differ = Vec::new();
    for case in &cases {
        assert_eq!(case.ggml.len(), 3, "{}: q4_k, q5_k and q6_k", case.name);
        for (format, want) in &case.ggml {
            if ours(format, &case.x) != *want {
                differ.push(format!("{format} {}", case.name));
            }
        }
    }
    assert!(differ.is_empty(), "not ggml's bytes: {differ:?}");
}
