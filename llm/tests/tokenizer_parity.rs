//! Token ids identical to llama.cpp's on a mixed corpus, for SmolLM2 (49K vocab, `smollm`
//! pre-tokenizer) and Qwen2.5 (151K vocab, `qwen2`). Golden ids were recorded with
//! `llm/tests/golden/make_tokenizer_golden.py` (llama-tokenize).

use pocket_assets::{Store, ids};
use pocket_llm::gguf::GgufFile;
use pocket_llm::tokenizer::{StreamDecoder, Tokenizer};

fn corpus() -> Vec<String> {
    let text = include_str!("golden/tokenizer_corpus.json");
    serde_json::from_str(text).expect("corpus json")
}

fn golden(text: &str) -> Vec<Vec<u32>> {
    let v: serde_json::Value = serde_json::from_str(text).expect("golden json");
    serde_json::from_value(v["ids"].clone()).expect("ids")
}

fn tokenizer(id: &str, file: &str) -> Tokenizer {
    let store = Store::open_default().expect("asset store");
    let path = store.require_file(id, file).expect("model installed");
    let gguf = GgufFile::open(path).expect("gguf");
    let t0 = std::time::Instant::now();
    let tok = Tokenizer::from_gguf(&gguf).expect("tokenizer");
    eprintln!("{id}: tokenizer built in {:?}", t0.elapsed());
    tok
}

fn check_parity(tok: &Tokenizer, expected: &[Vec<u32>]) {
    let corpus = corpus();
    assert_eq!(
        corpus.len(),
        expected.len(),
        "golden file matches the corpus"
    );
    let mut failures = Vec::new();
    for (text, want) in corpus.iter().zip(expected) {
        let got = tok.encode(text, true);
        if &got != want {
            failures.push(format!(
                "{text:?}\n  llama.cpp {want:?}\n  ours      {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} texts differ:\n{}",
        failures.len(),
        corpus.len(),
        failures.join("\n")
    );
}

/// Decoding llama.cpp's ids gives the text back (control tokens aside), and streaming the
/// ids one by one gives the same text in whole characters.
fn check_decode(tok: &Tokenizer, expected: &[Vec<u32>]) {
    for (text, ids) in corpus().iter().zip(expected) {
        let full = tok.decode_with(ids, true).expect("decode");
        assert_eq!(&full, text);
        let mut d = StreamDecoder::with_special();
        let mut streamed = String::new();
        for &id in ids {
            streamed.push_str(d.push(tok, id).expect("valid id"));
        }
        streamed.push_str(d.flush());
        assert_eq!(&streamed, text);
    }
}

/// The two vocabularies tested: SmolLM2's and Qwen2.5's.
const BOTH: [(&str, &str); 2] = [
    (ids::SMOLLM2, ids::SMOLLM2_FILE),
    (ids::QWEN25_CODER, ids::QWEN25_CODER_FILE),
];

#[test]
fn smollm2_matches_llama_cpp() {
    let tok = tokenizer(ids::SMOLLM2, ids::SMOLLM2_FILE);
    assert_eq!(tok.vocab_size(), 49_152);
    let expected = golden(include_str!("golden/tokenizer_smollm2.json"));
    check_parity(&tok, &expected);
    check_decode(&tok, &expected);
    let im_end = tok.token_id("<|im_end|>").expect("im_end");
    assert!(tok.is_eog(im_end) && tok.is_eog(tok.eos().expect("eos")));
}

#[test]
fn qwen25_matches_llama_cpp() {
    let tok = tokenizer(ids::QWEN25_CODER, ids::QWEN25_CODER_FILE);
    assert_eq!(tok.vocab_size(), 151_936);
    let expected = golden(include_str!("golden/tokenizer_qwen25.json"));
    check_parity(&tok, &expected);
    check_decode(&tok, &expected);
    assert!(
        tok.is_eog(151_645) && tok.is_eog(151_643),
        "<|im_end|> and <|endoftext|>"
    );
}

/// The number tokens (the copy rule never bans them) are the ten digits in both vocabularies,
/// and the text "100" is made of them alone.
#[test]
fn the_number_tokens_are_the_digits() {
    for (id, file) in BOTH {
        let tok = tokenizer(id, file);
        let numbers = tok.number_ids();
        let texts: Vec<String> = numbers
            .iter()
            .map(|&n| tok.decode(&[n]).expect("decode"))
            .collect();
        assert_eq!(texts.len(), 10, "{id}: {texts:?}");
        assert!(texts.iter().all(|t| t.len() == 1), "{id}: {texts:?}");
        let hundred = tok.encode("It is 100 years.", false);
        let digits: Vec<u32> = hundred
            .iter()
            .copied()
            .filter(|t| numbers.binary_search(t).is_ok())
            .collect();
        assert_eq!(tok.decode(&digits).expect("decode"), "100", "{id}");
    }
}

/// The openings a reply may not echo: the user's words through the first token of the third
/// word, as heard and with the first letter's case flipped; none for a shorter text.
#[test]
fn echo_openings_end_at_the_start_of_the_nth_word() {
    use pocket_llm::chat::echo_openings;
    for (id, file) in BOTH {
        let tok = tokenizer(id, file);
        let (mut out, mut ends) = (Vec::new(), Vec::new());
        echo_openings(
            &tok,
            " which far man will give us as well.",
            3,
            &mut out,
            &mut ends,
        );
        assert_eq!(ends.len(), 2, "{id}");
        assert_eq!(ends[1], out.len(), "{id}");
        let first = tok.decode(&out[..ends[0]]).expect("decode");
        let second = tok.decode(&out[ends[0]..]).expect("decode");
        // The last token starts "man" (it may hold only part of it).
        assert!(first.starts_with("which far m"), "{id}: {first:?}");
        assert!(second.starts_with("Which far m"), "{id}: {second:?}");
        assert_eq!(
            out[..ends[0]],
            tok.encode("which far man", false)[..ends[0]]
        );
        out.clear();
        ends.clear();
        echo_openings(&tok, "Hello there.", 3, &mut out, &mut ends);
        echo_openings(&tok, "", 3, &mut out, &mut ends);
        echo_openings(&tok, "What is the time?", 0, &mut out, &mut ends);
        assert!(out.is_empty() && ends.is_empty(), "{id}: {out:?}");
    }
}
