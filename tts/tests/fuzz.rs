//! Fuzz targets of the synthesizer's text and config inputs, run as ordinary tests (a few
//! seconds each; `scripts/fuzz TARGET MINUTES` runs one longer). See `pocket-fuzz` for the
//! runner, the environment variables and the allocation cap.
//!
//! - `piper_json`: a Piper voice's `.onnx.json` → `PiperConfig::parse` → phoneme ids of an
//!   IPA string. Seeds: the real voice's config when installed and a small one; mutations
//!   change JSON values (rates, scales, ids, keys), structure and bytes.
//! - `text_segment`: LLM-like text streamed in random pieces through the `Segmenter` (the
//!   pipeline's reply segmenter) and every piece through `normalize`: no panic, pieces within
//!   the size cap, nothing but speakable characters out, no text invented.

use std::path::Path;

use pocket_fuzz::{Rng, mutate};
use pocket_tts::{PiperConfig, Segmenter, SegmenterConfig, normalize};

#[global_allocator]
static ALLOC: pocket_fuzz::CapAlloc = pocket_fuzz::CapAlloc;

const MINI: &str = r#"{"audio":{"sample_rate":22050},"espeak":{"voice":"en-us"},
"inference":{"noise_scale":0.667,"length_scale":1,"noise_w":0.8},"phoneme_type":"espeak",
"num_speakers":1,"phoneme_id_map":{"_":[0],"^":[1],"$":[2]," ":[3],"a":[14],"b":[15],"ə":[59],"ˈ":[120]}}"#;

/// JSON fragments worth putting anywhere in a config.
const JSON: &[&str] = &[
    "0",
    "-1",
    "1e400",
    "-1e400",
    "1e38",
    "4294967296",
    "18446744073709551616",
    "0.0",
    "null",
    "true",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "[0]",
    "[-9223372036854775808]",
    "\"\\u0000\"",
    "\"\\ud800\"",
    ",",
    ":",
    "\"_\"",
    "\"^\"",
    "\"$\"",
    "\"ab\"",
    "{\"",
    "}",
    "]",
    "\"sample_rate\"",
    "\"phoneme_id_map\"",
    "\"length_scale\"",
    "\"noise_scale\"",
    "\"noise_w\"",
    "\"num_speakers\"",
];

fn exec_piper(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let Ok(cfg) = PiperConfig::parse(&text) else {
        return;
    };
    assert!((8_000..=96_000).contains(&cfg.sample_rate));
    for s in [cfg.noise_scale, cfg.length_scale, cfg.noise_w] {
        assert!(s.is_finite() && s >= 0.0, "scale {s}");
    }
    let mut ids = Vec::new();
    cfg.phonemes_to_ids("həˈloʊ wɜːld, ab 🙂", &mut ids);
    assert!(ids.len() >= 3);
}

#[test]
fn fuzz_piper_json() {
    let mut seeds = vec![MINI.to_string()];
    if let Ok(store) = pocket_assets::Store::open_default()
        && let Ok(p) = store.require_file(pocket_assets::ids::PIPER_JOE, pocket_tts::JOE_CONFIG)
        && let Ok(t) = std::fs::read_to_string(p)
    {
        seeds.push(t);
    }
    let regressions =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions/piper_json");
    pocket_fuzz::replay_dir(&regressions, exec_piper);
    pocket_fuzz::fuzz(
        "piper_json",
        |rng: &mut Rng| {
            let seed = &seeds[rng.below(seeds.len())];
            match rng.below(3) {
                // Replace one JSON value (a number, string or array after a `:`).
                0 => replace_value(rng, seed).into_bytes(),
                1 => mutate::mutate_text(rng, seed, JSON).into_bytes(),
                _ => {
                    let mut b = seed.clone().into_bytes();
                    mutate::mutate(rng, &mut b, &[], &[b"{", b"}", b"[", b"]", b"\"", b":"]);
                    b
                }
            }
        },
        exec_piper,
    );
}

/// `json` with the value after one randomly chosen `:` replaced by a fragment.
fn replace_value(rng: &mut Rng, json: &str) -> String {
    let colons: Vec<usize> = json.match_indices(':').map(|(i, _)| i).collect();
    let Some(&at) = rng.pick(&colons) else {
        return json.to_string();
    };
    let rest = &json[at + 1..];
    let end = rest.find([',', '}']).map_or(rest.len(), |e| {
        if rest.trim_start().starts_with('[') {
            rest.find(']').map_or(e, |b| b + 1)
        } else {
            e
        }
    });
    let value = rng.pick(JSON).copied().unwrap_or("0");
    format!("{}{}{}", &json[..=at], value, &rest[end..])
}

/// What an LLM reply looks like, plus markup, numbers and symbols the normalizer handles.
const REPLY: &[&str] = &[
    " ",
    " ",
    " ",
    "\n",
    "\n\n",
    "The",
    " capital",
    " of",
    " France",
    " is",
    " Paris",
    ".",
    ",",
    "!",
    "?",
    ";",
    ":",
    " and",
    " to",
    " with",
    " —",
    "-",
    "'",
    "\"",
    "1",
    "42",
    "3.5",
    "1,000",
    "$5",
    "€20",
    "50%",
    "3:30",
    "pm",
    "2024-01-15",
    "Dr.",
    " e.g.",
    " Mr.",
    "U.S.",
    "km",
    "°C",
    "**",
    "*",
    "_",
    "`",
    "```",
    "```rust\nfn x() {}\n```",
    "# ",
    "- ",
    "1. ",
    "[a](http://x.io)",
    "<b>",
    "</b>",
    "http://example.com/a?b=c",
    "a@b.com",
    "é",
    "ß",
    "я",
    "中文",
    "🙂",
    "👍🏽",
    "\u{200b}",
    "\u{0}",
    "\t",
    "...",
    "…",
    "#1",
    "v2.0",
    " supercalifragilistic",
];

fn exec_text(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let cfg = SegmenterConfig::default();
    let max = cfg.max_chars;
    let mut seg = Segmenter::new(cfg);
    let mut pieces = Vec::new();
    // Feed in pieces whose sizes come from the text itself (char boundaries kept).
    let mut rest: &str = &text;
    let mut k = 0usize;
    while !rest.is_empty() {
        let n = 1 + (k * 7 + rest.len()) % 11;
        let cut = rest.char_indices().nth(n).map_or(rest.len(), |(i, _)| i);
        pieces.extend(seg.push(&rest[..cut]));
        rest = &rest[cut..];
        k += 1;
    }
    pieces.extend(seg.flush());
    // Nothing invented: the pieces' characters (spaces aside) appear in the text in order
    // (code blocks are dropped, so some may be missing).
    let mut source = text.chars().filter(|c| !c.is_whitespace());
    for c in pieces
        .iter()
        .flat_map(|p| p.chars())
        .filter(|c| !c.is_whitespace())
    {
        assert!(
            source.any(|s| s == c),
            "{c:?} of {pieces:?} is not in the text in order"
        );
    }
    for p in &pieces {
        assert!(p.len() <= max + 8, "piece of {} bytes: {p:?}", p.len());
        assert!(!p.trim().is_empty(), "empty piece");
        let spoken = normalize(p);
        assert!(
            spoken
                .chars()
                .all(|c| c.is_alphabetic() || " ,.!?;:'-".contains(c)),
            "{p:?} -> {spoken:?}"
        );
        assert!(
            spoken.len() <= 64 * p.len() + 64,
            "{p:?} -> {} bytes",
            spoken.len()
        );
    }
    // The whole text at once too (the voice normalizes what it was given).
    let _ = normalize(&text);
}

#[test]
fn fuzz_text_segment() {
    let regressions =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions/text_segment");
    pocket_fuzz::replay_dir(&regressions, exec_text);
    pocket_fuzz::fuzz(
        "text_segment",
        |rng: &mut Rng| {
            let n = 1 + rng.size(300);
            let t = mutate::text(rng, REPLY, n);
            if rng.one_in(3) {
                mutate::mutate_text(rng, &t, REPLY).into_bytes()
            } else {
                t.into_bytes()
            }
        },
        exec_text,
    );
}
