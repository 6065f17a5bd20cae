//! Chat templates read from the real GGUF files, rendered and tokenized.

use pocket_assets::{Store, ids};
use pocket_llm::chat::{ChatOptions, ChatTemplate, Message, ThinkFilter};
use pocket_llm::gguf::GgufFile;
use pocket_llm::tokenizer::{StreamDecoder, Tokenizer};

fn open(id: &str, file: &str) -> GgufFile {
    let store = Store::open_default().expect("asset store");
    GgufFile::open(store.require_file(id, file).expect("model installed")).expect("gguf")
}

#[test]
fn smollm2_prompt_uses_its_default_system_prompt_and_chatml_tokens() {
    let f = open(ids::SMOLLM2, ids::SMOLLM2_FILE);
    let t = ChatTemplate::from_metadata(f.metadata()).expect("chatml");
    assert_eq!(
        t.default_system(),
        Some("You are a helpful AI assistant named SmolLM, trained by Hugging Face")
    );
    assert!(!t.supports_thinking());
    let prompt = t.render(&[Message::user("What is 2+2?")], ChatOptions::default());
    assert!(prompt.ends_with("<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n"));
    let tok = Tokenizer::from_gguf(&f).expect("tokenizer");
    let ids = tok.encode(&prompt, true);
    let im_start = tok.token_id("<|im_start|>").expect("im_start");
    let im_end = tok.token_id("<|im_end|>").expect("im_end");
    assert_eq!(
        ids[0], im_start,
        "no BOS for SmolLM2, the prompt starts with <|im_start|>"
    );
    assert_eq!(ids.iter().filter(|&&i| i == im_start).count(), 3);
    assert_eq!(ids.iter().filter(|&&i| i == im_end).count(), 2);
    assert_eq!(tok.decode_with(&ids, true).expect("decode"), prompt);
}

#[test]
fn qwen25_prompt_and_streamed_reply_filtering() {
    let f = open(ids::QWEN25_CODER, ids::QWEN25_CODER_FILE);
    let t = ChatTemplate::from_metadata(f.metadata()).expect("chatml");
    assert_eq!(
        t.default_system(),
        Some("You are Qwen, created by Alibaba Cloud. You are a helpful assistant.")
    );
    let prompt = t.render(
        &[Message::system("Answer briefly."), Message::user("Hi")],
        ChatOptions::default(),
    );
    assert_eq!(
        prompt,
        "<|im_start|>system\nAnswer briefly.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    );
    // A reply with a think block, streamed token by token, comes out without it.
    let tok = Tokenizer::from_gguf(&f).expect("tokenizer");
    let reply = tok.encode(
        "<think>\nThe user greets me. 😀\n</think>\n\nHello! 你好 😀",
        false,
    );
    let (mut dec, mut filter, mut spoken) =
        (StreamDecoder::new(), ThinkFilter::new(), String::new());
    for id in reply {
        let piece = dec.push(&tok, id).expect("valid id");
        spoken.push_str(filter.push(piece));
    }
    spoken.push_str(filter.push(dec.flush()));
    spoken.push_str(filter.flush());
    assert_eq!(spoken, "Hello! 你好 😀");
}

/// The default model tells a sentence cut at a phrase boundary from the whole one.
#[test]
fn smollm2_hears_an_unfinished_sentence() {
    use std::sync::atomic::AtomicBool;
    let store = Store::open_default().expect("asset store");
    let path = store
        .require_file(ids::SMOLLM2, ids::SMOLLM2_FILE)
        .expect("model installed");
    let model = pocket_llm::Model::load(&path).expect("model");
    let cfg = pocket_llm::SessionConfig {
        system_prompt: Some("You are a helpful voice assistant.".into()),
        max_context: 1024,
        threads: 2,
        sampler: pocket_llm::sampler::SamplerConfig::greedy(),
        thinking: false,
        max_reply_tokens: 32,
        history: pocket_llm::chat::HistoryPolicy::AllThatFit,
        avoid_copy_ngram: 0,
        avoid_echo_words: 0,
        drafts: pocket_llm::Drafts::default(),
    };
    let mut chat = pocket_llm::ChatSession::new(model, cfg).expect("chat");
    let never = AtomicBool::new(false);
    let mut p = |s: &str| {
        chat.turn_end_probability(s, &never)
            .expect("judge")
            .expect("p")
    };
    for (part, whole) in [
        ("What is the capital of", "What is the capital of France?"),
        ("How many legs does", "How many legs does a spider have?"),
        (
            "Tell me a short story about",
            "Tell me a short story about a brave little mouse.",
        ),
        (
            "When did the second world war",
            "When did the second world war come to an end?",
        ),
    ] {
        let (a, b) = (p(part), p(whole));
        assert!(a < 0.01 && b > 0.05, "{part:?} {a} vs {whole:?} {b}");
    }
}
