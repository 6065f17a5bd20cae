//! Fuzz targets of the LLM engine's input paths, run as ordinary tests (a few seconds each;
//! `scripts/fuzz TARGET MINUTES` runs one longer). See `pocket-fuzz` for the runner, the
//! environment variables and the allocation cap.
//!
//! - `gguf_model`: GGUF reader → tokenizer build → config → model bind → two forward steps, on
//!   structure-aware mutations of a synthesized tiny qwen3 (Q8_0 and Q4_1) and of the real
//!   SmolLM2 header and metadata (its 49,152-token vocabulary, no tensors) when installed.
//! - `bpe_roundtrip`: byte-level BPE on the tiny model's vocabulary and the real ones: every
//!   valid UTF-8 text encodes and decodes back to itself, also token by token through
//!   `StreamDecoder`.

use std::path::Path;
use std::sync::Arc;

use pocket_fuzz::{Field, Kind, Rng, mutate};
use pocket_llm::gguf::{GgmlType, GgufFile, MetaArray, MetaValue, encode_str};
use pocket_llm::synth::{SynthQuant, SynthShape, synth_bytes};
use pocket_llm::tokenizer::{StreamDecoder, Tokenizer};
use pocket_llm::{LoadOptions, Model, ModelConfig, Session, SessionOptions};

#[global_allocator]
static ALLOC: pocket_fuzz::CapAlloc = pocket_fuzz::CapAlloc;

/// A GGUF file taken apart, so mutations can change values and shapes and re-encode it.
#[derive(Clone)]
struct Image {
    meta: Vec<(String, MetaValue)>,
    tensors: Vec<Tensor>,
    /// The data section (after the aligned header).
    data: Vec<u8>,
}

#[derive(Clone)]
struct Tensor {
    name: String,
    dims: Vec<u64>,
    type_id: u32,
    offset: u64,
}

const ALIGN: usize = 32;

impl Image {
    fn from_file(f: &GgufFile, keep_tensors: bool) -> Image {
        let meta = f
            .metadata()
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let (tensors, data) = if keep_tensors {
            let t = f
                .tensors()
                .iter()
                .map(|t| Tensor {
                    name: t.name().to_string(),
                    dims: t.dims().to_vec(),
                    type_id: t.ggml_type().id(),
                    offset: t.offset(),
                })
                .collect();
            (t, f.bytes()[f.data_offset() as usize..].to_vec())
        } else {
            (Vec::new(), Vec::new())
        };
        Image {
            meta,
            tensors,
            data,
        }
    }

    /// The file bytes and where its numbers are.
    fn encode(&self) -> (Vec<u8>, Vec<Field>) {
        let mut out = Vec::with_capacity(self.data.len() + 4096);
        let mut fields = Vec::new();
        out.extend_from_slice(b"GGUF");
        fields.push(Field::new(4, 4, Kind::Tag));
        out.extend_from_slice(&3u32.to_le_bytes());
        fields.push(Field::new(8, 8, Kind::Count));
        out.extend_from_slice(&(self.tensors.len() as u64).to_le_bytes());
        fields.push(Field::new(16, 8, Kind::Count));
        out.extend_from_slice(&(self.meta.len() as u64).to_le_bytes());
        for (k, v) in &self.meta {
            fields.push(Field::new(out.len(), 8, Kind::Len));
            encode_str(k, &mut out);
            let at = out.len();
            fields.push(Field::new(at, 4, Kind::Tag));
            match v {
                MetaValue::String(_) => fields.push(Field::new(at + 4, 8, Kind::Len)),
                MetaValue::Array(a) => {
                    fields.push(Field::new(at + 4, 4, Kind::Tag));
                    fields.push(Field::new(at + 8, 8, Kind::Count));
                    if let MetaArray::String(items) = a {
                        // The length fields of the first and last few strings.
                        let mut p = at + 16;
                        let n = items.len();
                        for (i, s) in items.iter().enumerate() {
                            if i < 16 || i + 16 >= n {
                                fields.push(Field::new(p, 8, Kind::Len));
                            }
                            p += 8 + s.len();
                        }
                    }
                }
                _ => {}
            }
            v.encode(&mut out);
        }
        for t in &self.tensors {
            fields.push(Field::new(out.len(), 8, Kind::Len));
            encode_str(&t.name, &mut out);
            fields.push(Field::new(out.len(), 4, Kind::Dim));
            out.extend_from_slice(&(t.dims.len() as u32).to_le_bytes());
            for d in &t.dims {
                fields.push(Field::new(out.len(), 8, Kind::Dim));
                out.extend_from_slice(&d.to_le_bytes());
            }
            fields.push(Field::new(out.len(), 4, Kind::Tag));
            out.extend_from_slice(&t.type_id.to_le_bytes());
            fields.push(Field::new(out.len(), 8, Kind::Offset));
            out.extend_from_slice(&t.offset.to_le_bytes());
        }
        out.resize(out.len().next_multiple_of(ALIGN), 0);
        out.extend_from_slice(&self.data);
        (out, fields)
    }

    /// Lays the tensors out again after their shapes or types changed, keeping each one's
    /// old bytes as far as they go, so the file stays valid and reaches the model binder.
    /// Skipped when a tensor would need more than 4 MiB.
    fn relayout(&mut self) {
        let mut data = Vec::new();
        let mut offsets = Vec::new();
        for t in &self.tensors {
            let n = GgmlType::from_id(t.type_id).and_then(|ty| {
                let row = ty.row_bytes(*t.dims.first().unwrap_or(&1))?;
                t.dims
                    .iter()
                    .skip(1)
                    .try_fold(row, |a, &d| a.checked_mul(d))
            });
            let Some(n) = n.filter(|&n| n <= 4 << 20) else {
                return;
            };
            let start = data.len();
            offsets.push(start as u64);
            let old = self.data.get(t.offset as usize..).unwrap_or(&[]);
            let keep = old.len().min(n as usize);
            data.extend_from_slice(&old[..keep]);
            data.resize(start + n as usize, 0x3c);
            data.resize(data.len().next_multiple_of(ALIGN), 0);
        }
        for (t, o) in self.tensors.iter_mut().zip(offsets) {
            t.offset = o;
        }
        self.data = data;
    }
}

fn int_value(rng: &mut Rng, cur: i128) -> MetaValue {
    let v: i128 = match rng.below(8) {
        0 => 0,
        1 => 1,
        2 => -1,
        3 => cur * 2,
        4 => cur + 1,
        5 => i128::from(u32::MAX),
        6 => 1 << rng.below(64),
        _ => rng.next_u64() as i128,
    };
    match rng.below(4) {
        0 => MetaValue::I32(v as i32),
        1 => MetaValue::U64(v as u64),
        2 => MetaValue::U8(v as u8),
        _ => MetaValue::U32(v as u32),
    }
}

/// Pieces of vocabulary text: byte-level characters, special tokens, odd Unicode.
const PIECES: &[&str] = &[
    "Ġ",
    "Ċ",
    "ĠĠ",
    "a",
    "the",
    " ",
    "<|im_start|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<think>",
    "<0x0A>",
    "é",
    "中",
    "🙂",
    "\u{0}",
    "[UNK_BYTE_0x00]",
    "Ġ Ġ",
    "a b",
];

fn string_value(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => String::new(),
        1 => "x".repeat(rng.size(5000)),
        _ => {
            let n = rng.size(12);
            mutate::text(rng, PIECES, n)
        }
    }
}

fn mutate_value(rng: &mut Rng, v: &mut MetaValue) {
    *v = match &*v {
        MetaValue::F32(_) | MetaValue::F64(_) => MetaValue::F32(
            *rng.pick(&[f32::NAN, f32::INFINITY, 0.0, -1.0, 1e30, 1e-30, 0.5])
                .unwrap_or(&0.0),
        ),
        MetaValue::String(_) => match rng.below(4) {
            0 => MetaValue::U32(7),
            _ => MetaValue::String(string_value(rng)),
        },
        MetaValue::Bool(b) => match rng.below(2) {
            0 => MetaValue::Bool(!*b),
            _ => MetaValue::U8(1),
        },
        MetaValue::Array(a) => {
            let mut a = a.clone();
            mutate_array(rng, &mut a);
            MetaValue::Array(a)
        }
        other => {
            let cur = other.as_i128().unwrap_or(0);
            int_value(rng, cur)
        }
    };
}

fn mutate_array(rng: &mut Rng, a: &mut MetaArray) {
    match a {
        MetaArray::String(items) => match rng.below(5) {
            0 => items.truncate(rng.below(items.len() + 1)),
            1 => {
                for _ in 0..rng.size(64) {
                    items.push(string_value(rng));
                }
            }
            2 => items.clear(),
            _ => {
                for _ in 0..1 + rng.size(16) {
                    let i = rng.below(items.len());
                    if let Some(s) = items.get_mut(i) {
                        *s = string_value(rng);
                    }
                }
            }
        },
        MetaArray::I32(items) => match rng.below(3) {
            0 => items.truncate(rng.below(items.len() + 1)),
            _ => {
                for _ in 0..1 + rng.size(64) {
                    let i = rng.below(items.len());
                    if let Some(x) = items.get_mut(i) {
                        *x = rng.below(9) as i32 - 1;
                    }
                }
            }
        },
        other => *other = MetaArray::U32(vec![rng.next_u64() as u32; rng.size(8)]),
    }
}

/// Value- and shape-level changes to the image.
fn mutate_image(rng: &mut Rng, img: &mut Image) {
    for _ in 0..1 + rng.size(3) {
        let nt = img.tensors.len();
        let nm = img.meta.len();
        match rng.below(9) {
            0..=2 if nm > 0 => {
                // Tokenizer keys most often: they carry the most structure.
                let i = if rng.one_in(2) {
                    img.meta
                        .iter()
                        .position(|(k, _)| k.starts_with("tokenizer.ggml.") && rng.one_in(3))
                        .unwrap_or(0)
                } else {
                    rng.below(nm)
                };
                mutate_value(rng, &mut img.meta[i].1);
            }
            3 if nm > 0 => {
                img.meta.remove(rng.below(nm));
            }
            4 if nt > 0 => {
                let t = &mut img.tensors[rng.below(nt)];
                let k = rng.below(t.dims.len().max(1));
                let cur = t.dims.get(k).copied().unwrap_or(1);
                let v = match rng.below(6) {
                    0 => 0,
                    1 => cur * 2,
                    2 => cur / 2,
                    3 => cur + 32,
                    4 => 1 << rng.below(63),
                    _ => 1,
                };
                match t.dims.get_mut(k) {
                    Some(d) => *d = v,
                    None => t.dims.push(v),
                }
                if rng.one_in(2) {
                    img.relayout();
                }
            }
            5 if nt > 0 => {
                let t = &mut img.tensors[rng.below(nt)];
                t.type_id = rng.below(42) as u32;
                if rng.one_in(2) {
                    img.relayout();
                }
            }
            6 if nt > 0 => {
                let t = &mut img.tensors[rng.below(nt)];
                match rng.below(3) {
                    0 => {
                        t.dims.pop();
                    }
                    1 => t.dims.push(1 + rng.below(3) as u64),
                    _ => t.dims.reverse(),
                }
                img.relayout();
            }
            7 if nt > 1 => {
                let (a, b) = (rng.below(nt), rng.below(nt));
                let name = img.tensors[a].name.clone();
                img.tensors[a].name = img.tensors[b].name.clone();
                img.tensors[b].name = name;
            }
            _ if nt > 0 => {
                img.tensors.remove(rng.below(nt));
            }
            _ => {}
        }
    }
}

fn installed(id: &str, file: &str) -> Option<std::path::PathBuf> {
    let store = pocket_assets::Store::open_default().ok()?;
    store.require_file(id, file).ok()
}

fn gguf_seeds() -> Vec<Image> {
    let mut seeds = Vec::new();
    for q in [SynthQuant::Q8_0, SynthQuant::Q4_1] {
        let bytes = synth_bytes(SynthShape::TinyQwen3, q, 7).expect("synth model");
        let f = GgufFile::from_bytes(bytes).expect("synth model parses");
        seeds.push(Image::from_file(&f, true));
    }
    // The real vocabulary and metadata, without the weights.
    if let Some(p) = installed(
        pocket_assets::ids::SMOLLM2,
        pocket_assets::ids::SMOLLM2_FILE,
    ) {
        let f = GgufFile::open(&p).expect("installed model parses");
        seeds.push(Image::from_file(&f, false));
    }
    seeds
}

/// Every library call of the GGUF path must return (any `Err` is fine) without panicking.
fn exec_gguf(input: &[u8]) {
    let Ok(file) = GgufFile::from_bytes(input.to_vec()) else {
        return;
    };
    for t in file.tensors() {
        assert_eq!(
            file.tensor_data(t).len() as u64,
            t.n_bytes(),
            "{}",
            t.name()
        );
    }
    let _ = ModelConfig::from_gguf(&file);
    if let Ok(tok) = Tokenizer::from_gguf(&file) {
        let ids = tok.encode("Hi <|im_start|>user wörld 123\n🙂", true);
        let _ = tok.decode(&ids);
    }
    let repack = input.len().is_multiple_of(2);
    let Ok(model) = Model::from_gguf(
        file,
        LoadOptions {
            repack,
            ..LoadOptions::default()
        },
    ) else {
        return;
    };
    let opts = SessionOptions {
        context: 8,
        threads: 1,
        batch: 4,
    };
    if let Ok(mut s) = Session::new(Arc::clone(&model), opts) {
        let n = model.config().vocab_size as u32;
        let _ = s.prefill(&[0, 1 % n]);
        if let Ok(logits) = s.decode(2 % n) {
            assert_eq!(logits.len(), n as usize);
        }
    }
}

#[test]
fn fuzz_gguf_model() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions/gguf_model");
    pocket_fuzz::replay_dir(&dir, exec_gguf);
    let seeds = gguf_seeds();
    pocket_fuzz::fuzz(
        "gguf_model",
        |rng| {
            // The real vocabulary costs ~100x the tiny one per case: 1 case in 8.
            let i = if seeds.len() > 2 && rng.one_in(8) {
                2
            } else {
                rng.below(2)
            };
            let mut img = seeds[i].clone();
            let how = rng.below(4);
            if how != 0 {
                mutate_image(rng, &mut img);
            }
            let (mut bytes, fields) = img.encode();
            if how != 1 {
                mutate::mutate(rng, &mut bytes, &fields, &[b"GGUF", b"general.alignment"]);
            }
            bytes
        },
        exec_gguf,
    );
}

/// Tokenizers to round-trip through: the tiny synthesized vocabulary and the real ones.
fn tokenizers() -> Vec<Tokenizer> {
    let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q8_0, 7).expect("synth model");
    let f = GgufFile::from_bytes(bytes).expect("synth model parses");
    let mut out = vec![Tokenizer::from_gguf(&f).expect("synth tokenizer")];
    use pocket_assets::ids;
    for (id, file) in [
        (ids::SMOLLM2, ids::SMOLLM2_FILE),
        (ids::QWEN25_CODER, ids::QWEN25_CODER_FILE),
    ] {
        if let Some(p) = installed(id, file) {
            let f = GgufFile::open(&p).expect("installed model parses");
            out.push(Tokenizer::from_gguf(&f).expect("installed tokenizer"));
        }
    }
    out
}

/// Text pieces the pre-tokenizers treat specially: contractions, digits, spaces, newlines,
/// letters of several scripts, marks, emoji, special tokens.
const TEXT: &[&str] = &[
    " ",
    "  ",
    "\n",
    "\r\n",
    "\t",
    "'s",
    "'T",
    "'ll",
    "n't",
    "123",
    "4567",
    "1.5",
    "a",
    "Hello",
    " world",
    "É",
    "ß",
    "ﬁ",
    "ǅ",
    "я",
    "中文",
    "日本語",
    "한국어",
    "ا",
    "\u{301}",
    "\u{200d}",
    "🙂",
    "👍🏽",
    "🇺🇸",
    "\u{feff}",
    "\u{0}",
    "\u{7f}",
    "\u{fffd}",
    "<|im_start|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<think>",
    "</think>",
    "<0x0A>",
    "Ġ",
    "Ċ",
    "!!",
    "...",
    "$",
    "//",
    "{}",
];

/// GPT-2's byte → character map of byte-level BPE.
fn byte_char(b: u8) -> char {
    let printable = |b: u8| (33..=126).contains(&b) || (161..=172).contains(&b) || b >= 174;
    if printable(b) {
        return char::from(b);
    }
    let rank = (0..b).filter(|&x| !printable(x)).count() as u32;
    char::from_u32(256 + rank).unwrap_or('?')
}

/// The bytes a tokenizer has no token for. Like llama.cpp, encoding drops them (SmolLM2's
/// vocabulary lacks a few lead bytes of 4-byte UTF-8), so the round trip is exact only up
/// to them.
fn missing_bytes(tok: &Tokenizer) -> Vec<u8> {
    (0..=255u8)
        .filter(|&b| tok.token_id(&byte_char(b).to_string()).is_none())
        .collect()
}

#[test]
fn fuzz_bpe_roundtrip() {
    let toks = tokenizers();
    let missing: Vec<Vec<u8>> = toks.iter().map(missing_bytes).collect();
    for (t, m) in toks.iter().zip(&missing) {
        if !m.is_empty() {
            eprintln!(
                "bpe_roundtrip: a vocabulary of {} tokens has no token for bytes {m:02x?}",
                t.vocab_size()
            );
        }
    }
    pocket_fuzz::fuzz(
        "bpe_roundtrip",
        |rng| {
            // Byte 0 picks the tokenizer; the rest is the text.
            let mut out = vec![rng.next_u64() as u8];
            let n = 1 + rng.size(200);
            let text = mutate::text(rng, TEXT, n);
            let text = if rng.one_in(4) {
                mutate::mutate_text(rng, &text, TEXT)
            } else {
                text
            };
            out.extend_from_slice(text.as_bytes());
            out
        },
        |input| {
            let Some((&which, rest)) = input.split_first() else {
                return;
            };
            let which = usize::from(which) % toks.len();
            let tok = &toks[which];
            let text = String::from_utf8_lossy(rest).into_owned();
            // Special-token texts survive as such; other text loses only the bytes missing
            // from the vocabulary.
            let kept: Vec<u8> = text
                .bytes()
                .filter(|b| !missing[which].contains(b))
                .collect();
            if kept.len() != text.len() {
                let ids = tok.encode(&text, false);
                let _ = tok.decode(&ids).expect("ids from encode are valid");
                return;
            }
            let mut plain = Vec::new();
            tok.encode_into(&text, false, false, &mut plain);
            let back = tok.decode(&plain).expect("ids from encode are valid");
            assert_eq!(back, text, "plain round trip, ids {plain:?}");
            let special = tok.encode(&text, false);
            let back = tok.decode_with(&special, true).expect("valid ids");
            assert_eq!(
                back, text,
                "round trip with special tokens, ids {special:?}"
            );
            let mut dec = StreamDecoder::new();
            let mut streamed = String::new();
            for &id in &plain {
                streamed.push_str(dec.push(tok, id).expect("valid id"));
            }
            streamed.push_str(dec.flush());
            assert_eq!(streamed, text, "streamed decode");
        },
    );
}
