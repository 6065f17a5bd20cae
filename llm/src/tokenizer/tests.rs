//! Tokenizer tests on a small hand-made vocabulary (the real-vocabulary parity tests with
//! llama.cpp live in `llm/tests/tokenizer_parity.rs`).

use super::unicode::BYTE_TO_CHAR;
use super::*;
use crate::gguf::{MetaArray, MetaValue, Metadata};

/// Token ids 0..256 are the byte characters in byte order, then merges, then specials.
fn tiny_meta(pre: &str) -> Metadata {
    let mut tokens: Vec<String> = BYTE_TO_CHAR.iter().map(|c| c.to_string()).collect();
    let mut types = vec![1i32; 256];
    let merges = ["Ġ t", "h e", "Ġt he", "i n", "Ġ in"];
    for m in merges {
        tokens.push(m.replace(' ', ""));
        types.push(1);
    }
    for (t, ty) in [("<|im_start|>", 3), ("<|im_end|>", 3), ("<tool>", 4)] {
        tokens.push(t.to_string());
        types.push(ty);
    }
    let mut m = Metadata::new();
    let s = |x: &str| MetaValue::String(x.to_string());
    m.insert("tokenizer.ggml.model", s("gpt2"));
    m.insert("tokenizer.ggml.pre", s(pre));
    m.insert(
        "tokenizer.ggml.tokens",
        MetaValue::Array(MetaArray::String(tokens)),
    );
    m.insert(
        "tokenizer.ggml.token_type",
        MetaValue::Array(MetaArray::I32(types)),
    );
    let merges = merges.iter().map(|m| m.to_string()).collect();
    m.insert(
        "tokenizer.ggml.merges",
        MetaValue::Array(MetaArray::String(merges)),
    );
    m.insert("tokenizer.ggml.eos_token_id", MetaValue::U32(262));
    m.insert("tokenizer.ggml.add_bos_token", MetaValue::Bool(false));
    m
}

fn tiny() -> Tokenizer {
    Tokenizer::from_metadata(&tiny_meta("qwen2")).expect("tiny vocab")
}

fn id(t: &Tokenizer, text: &str) -> u32 {
    t.token_id(text).expect("token exists")
}

fn b(c: u8) -> u32 {
    u32::from(c)
}

#[test]
fn merges_follow_rank_order() {
    let t = tiny();
    assert_eq!((t.vocab_size(), t.n_merges()), (264, 5));
    assert_eq!(t.encode(" the", false), [id(&t, "Ġthe")]);
    assert_eq!(t.encode("the", false), [b(b't'), id(&t, "he")]);
    assert_eq!(t.encode(" in the", false), [id(&t, "Ġin"), id(&t, "Ġthe")]);
    assert_eq!(t.encode("", true), Vec::<u32>::new());
}

#[test]
fn special_tokens_are_split_out_first() {
    let t = tiny();
    let (start, end, tool) = (
        id(&t, "<|im_start|>"),
        id(&t, "<|im_end|>"),
        id(&t, "<tool>"),
    );
    let ids = t.encode("<|im_start|>the<|im_end|><tool>", false);
    assert_eq!(ids, [start, b(b't'), id(&t, "he"), end, tool]);
    // Without special parsing control tokens are plain text, user-defined ones still match.
    let mut plain = Vec::new();
    t.encode_into("<|im_end|><tool>", false, false, &mut plain);
    assert_eq!(plain.len(), "<|im_end|>".len() + 1);
    assert_eq!(plain.last(), Some(&tool));
    assert!(t.is_eog(end) && t.is_control(end) && !t.is_eog(start) && !t.is_control(tool));
    assert_eq!(t.eos(), Some(end));
}

#[test]
fn decode_round_trips_any_text() {
    let t = tiny();
    for text in [
        "hello world",
        "中文 and emoji 😀👍🏽",
        "tabs\tand\r\nnewlines  ",
        "é\u{0301} ĳ",
        "\0\u{7f}",
    ] {
        let ids = t.encode(text, false);
        assert_eq!(t.decode(&ids).expect("decode"), text);
    }
    let ids = t.encode("<|im_start|>hi<|im_end|>", false);
    assert_eq!(t.decode(&ids).expect("decode"), "hi");
    assert_eq!(
        t.decode_with(&ids, true).expect("decode"),
        "<|im_start|>hi<|im_end|>"
    );
    assert!(matches!(
        t.decode(&[9999]),
        Err(LlmError::InvalidToken {
            id: 9999,
            vocab_size: 264
        })
    ));
}

#[test]
fn stream_decoder_never_splits_characters() {
    let t = tiny();
    let text = "añ中😀!";
    let ids = t.encode(text, false);
    assert_eq!(ids.len(), text.len(), "one byte token per byte here");
    let mut d = StreamDecoder::new();
    let mut pieces = Vec::new();
    for &i in &ids {
        pieces.push(d.push(&t, i).expect("valid id").to_string());
    }
    assert_eq!(pieces, ["a", "", "ñ", "", "", "中", "", "", "", "😀", "!"]);
    assert_eq!(d.flush(), "");

    // A lone continuation byte is invalid at once; a truncated character shows at flush.
    assert_eq!(d.push(&t, 0x80).expect("byte"), "\u{fffd}");
    assert_eq!(d.push(&t, 0xE4).expect("byte"), "");
    assert_eq!(d.pending_bytes(), 1);
    assert_eq!(d.push(&t, b(b'x')).expect("byte"), "\u{fffd}x");
    assert_eq!(d.push(&t, 0xF0).expect("byte"), "");
    assert_eq!(d.flush(), "\u{fffd}");
    assert_eq!(d.pending_bytes(), 0);
    assert!(d.push(&t, 70_000).is_err());
}

#[test]
fn bad_vocabularies_are_errors() {
    let mut m = tiny_meta("qwen2");
    m.insert("tokenizer.ggml.model", MetaValue::String("llama".into()));
    assert!(matches!(
        Tokenizer::from_metadata(&m),
        Err(LlmError::UnsupportedTokenizer { .. })
    ));
    let m = tiny_meta("nonexistent-pre");
    assert!(matches!(
        Tokenizer::from_metadata(&m),
        Err(LlmError::UnsupportedTokenizer { .. })
    ));
    let mut m = tiny_meta("qwen2");
    m.insert(
        "tokenizer.ggml.token_type",
        MetaValue::Array(MetaArray::I32(vec![1; 3])),
    );
    assert!(matches!(
        Tokenizer::from_metadata(&m),
        Err(LlmError::InvalidVocab { .. })
    ));
    let mut m = tiny_meta("qwen2");
    m.insert(
        "tokenizer.ggml.tokens",
        MetaValue::Array(MetaArray::String(vec![])),
    );
    assert!(matches!(
        Tokenizer::from_metadata(&m),
        Err(LlmError::InvalidVocab { .. })
    ));
    let mut m = tiny_meta("qwen2");
    m.insert("tokenizer.ggml.merges", MetaValue::U32(1));
    assert!(matches!(
        Tokenizer::from_metadata(&m),
        Err(LlmError::WrongMetadataType { .. })
    ));
    // An out-of-range special id falls back to the BPE default (11), as in llama.cpp.
    let mut m = tiny_meta("qwen2");
    m.insert("tokenizer.ggml.bos_token_id", MetaValue::U32(1 << 20));
    assert_eq!(Tokenizer::from_metadata(&m).expect("vocab").bos(), Some(11));
    // Malformed merges are skipped, not fatal.
    let mut m = tiny_meta("qwen2");
    let merges = ["", "x", "Ġ", "nope nope", "Ġ t"]
        .map(String::from)
        .to_vec();
    m.insert(
        "tokenizer.ggml.merges",
        MetaValue::Array(MetaArray::String(merges)),
    );
    assert_eq!(Tokenizer::from_metadata(&m).expect("lenient").n_merges(), 1);
}

#[test]
fn bos_and_eos_are_added_when_asked() {
    let mut m = tiny_meta("smollm");
    m.insert("tokenizer.ggml.bos_token_id", MetaValue::U32(261));
    m.insert("tokenizer.ggml.add_bos_token", MetaValue::Bool(true));
    m.insert("tokenizer.ggml.add_eos_token", MetaValue::Bool(true));
    let t = Tokenizer::from_metadata(&m).expect("vocab");
    assert_eq!(t.encode("a", true), [261, b(b'a'), 262]);
    assert_eq!(t.encode("a", false), [b(b'a')]);
}

/// The tiny vocabulary plus `extra` as one more normal token, read back from a GGUF file
/// written in memory.
fn load_with_token(extra: String) -> Result<Tokenizer, LlmError> {
    let meta = tiny_meta("qwen2");
    let mut w = crate::gguf_writer::GgufWriter::new();
    for (k, v) in meta.iter() {
        let v = match (k, v) {
            ("tokenizer.ggml.tokens", MetaValue::Array(MetaArray::String(t))) => {
                let mut t = t.clone();
                t.push(extra.clone());
                MetaValue::Array(MetaArray::String(t))
            }
            ("tokenizer.ggml.token_type", MetaValue::Array(MetaArray::I32(t))) => {
                let mut t = t.clone();
                t.push(1);
                MetaValue::Array(MetaArray::I32(t))
            }
            _ => v.clone(),
        };
        w.meta(k, v);
    }
    let mut bytes = Vec::new();
    w.write(&mut bytes, |_, _| Ok(Vec::new()))?;
    let file = crate::gguf::GgufFile::from_bytes(bytes)?;
    Tokenizer::from_metadata(file.metadata())
}

#[test]
fn a_huge_token_outside_the_byte_alphabet_is_refused() {
    // 300k characters that are not byte-level characters (900 KB of text): the unknown-
    // character fallback used to copy the whole text once per character (~10^11 bytes).
    let huge = "中".repeat(300_000);
    match load_with_token(huge) {
        Err(LlmError::InvalidVocab { reason }) => {
            assert!(reason.contains("264"), "names the token: {reason}");
            assert!(reason.contains(&MAX_TOKEN_BYTES.to_string()), "{reason}");
        }
        Err(e) => panic!("unexpected error: {e}"),
        Ok(_) => panic!("a 900 KB token was accepted"),
    }
}

#[test]
fn unknown_characters_cost_linear_space() {
    // The longest token allowed, all outside the byte alphabet: its decoded piece stays a
    // small multiple of its text (each character becomes one `[UNK_BYTE_0x..]` marker).
    let text = "中".repeat(MAX_TOKEN_BYTES / 3);
    let t = load_with_token(text.clone()).expect("a token at the limit loads");
    let piece = t.pieces.get(264);
    assert!(
        piece.len() <= 8 * text.len(),
        "{} bytes of piece for {} bytes of text",
        piece.len(),
        text.len()
    );
    assert!(
        piece.starts_with(b"[UNK_BYTE_0xe4b8ad]"),
        "{:?}",
        &piece[..40]
    );
}
