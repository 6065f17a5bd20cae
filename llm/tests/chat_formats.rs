//! Chat sessions in the non-ChatML turn formats (Llama 3, Phi-3) on a tiny random model whose
//! file carries that format's template and control tokens: turns render in the format, the
//! history policy finds and drops earlier turns by the format's user header, and replies stop
//! at the format's end-of-turn token.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use pocket_llm::chat::{HistoryPolicy, TurnFormat};
use pocket_llm::gguf::{GgufFile, MetaArray, MetaValue};
use pocket_llm::gguf_writer::GgufWriter;
use pocket_llm::kernels::DType;
use pocket_llm::sampler::SamplerConfig;
use pocket_llm::synth::{SynthQuant, SynthShape, synth_bytes};
use pocket_llm::{ChatSession, LoadOptions, Model, SessionConfig};

const LLAMA3: &str = "{{- bos_token }}{%- for message in messages %}{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}";
const PHI3: &str = "{% for message in messages %}{% if message['role'] == 'user' %}{{'<|user|>\\n' + message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\\n' + message['content'] + '<|end|>\\n'}}{% else %}{{'<|system|>\\n' + message['content'] + '<|end|>\\n'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}";

/// The tiny random qwen3 rewritten with `template` and `controls` as control tokens (they
/// take the places of reserved ones).
fn model_with(template: &str, controls: &[&str]) -> Arc<Model> {
    let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q8_0, 3).expect("synth");
    let f = GgufFile::from_bytes(bytes).expect("gguf");
    let mut w = GgufWriter::new();
    for (key, value) in f.metadata().iter() {
        let value = match (key, value) {
            ("tokenizer.chat_template", _) => MetaValue::String(template.into()),
            ("tokenizer.ggml.tokens", MetaValue::Array(MetaArray::String(tokens))) => {
                let mut tokens = tokens.clone();
                let reserved = tokens
                    .iter()
                    .filter(|t| t.starts_with("<|reserved_special_"));
                let at: Vec<usize> = reserved
                    .take(controls.len())
                    .map(|t| tokens.iter().position(|x| x == t).expect("present"))
                    .collect();
                for (&i, c) in at.iter().zip(controls) {
                    tokens[i] = c.to_string();
                }
                MetaValue::Array(MetaArray::String(tokens))
            }
            _ => value.clone(),
        };
        w.meta(key, value);
    }
    for t in f.tensors() {
        let dtype = DType::from_ggml_id(t.ggml_type().id()).expect("dtype");
        w.tensor(t.name(), t.dims(), dtype).expect("tensor");
    }
    let mut out = Vec::new();
    w.write(&mut out, |i, _| Ok(f.tensor_data(&f.tensors()[i]).to_vec()))
        .expect("write");
    Model::from_gguf(
        GgufFile::from_bytes(out).expect("gguf"),
        LoadOptions::default(),
    )
    .expect("model")
}

fn config(history: HistoryPolicy) -> SessionConfig {
    SessionConfig {
        system_prompt: Some("You are a test.".into()),
        max_context: 1024,
        threads: 2,
        sampler: SamplerConfig::greedy(),
        thinking: false,
        max_reply_tokens: 6,
        history,
        avoid_copy_ngram: 0,
        avoid_echo_words: 0,
        drafts: pocket_llm::Drafts::default(),
    }
}

/// Runs three turns under "last exchange" and returns the text of what the model saw last.
fn three_turns(model: Arc<Model>) -> (ChatSession, String) {
    let mut chat =
        ChatSession::new(model.clone(), config(HistoryPolicy::LastTurns(1))).expect("chat");
    let never = AtomicBool::new(false);
    for q in ["first question", "second question", "third question"] {
        chat.reply(q, &never, &mut |_| ControlFlow::Continue(()))
            .expect("reply");
    }
    let seen = model
        .tokenizer()
        .decode_with(chat.session().tokens(), true)
        .expect("decode");
    (chat, seen)
}

#[test]
fn llama3_sessions_render_and_drop_turns_in_their_format() {
    let model = model_with(
        LLAMA3,
        &["<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"],
    );
    let eot = model.tokenizer().token_id("<|eot_id|>").expect("eot");
    assert!(model.tokenizer().is_eog(eot), "<|eot_id|> ends a reply");
    let (chat, seen) = three_turns(model);
    assert_eq!(chat.history().len(), 4, "last exchange + the new one");
    assert!(
        seen.starts_with(
            "<|start_header_id|>system<|end_header_id|>\n\nYou are a test.<|eot_id|>\
             <|start_header_id|>user<|end_header_id|>\n\nsecond question<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\n"
        ),
        "{seen:?}"
    );
    assert!(!seen.contains("first question") && !seen.contains("<|im_start|>"));
    assert!(seen.contains("<|start_header_id|>user<|end_header_id|>\n\nthird question<|eot_id|>"));
}

#[test]
fn phi3_sessions_render_and_drop_turns_in_their_format() {
    let model = model_with(
        PHI3,
        &["<|user|>", "<|assistant|>", "<|system|>", "<|end|>"],
    );
    let (chat, seen) = three_turns(model);
    assert_eq!(chat.history().len(), 4);
    assert!(
        seen.starts_with(
            "<|system|>\nYou are a test.<|end|>\n<|user|>\nsecond question<|end|>\n<|assistant|>\n"
        ),
        "{seen:?}"
    );
    assert!(!seen.contains("first question"));
    assert!(seen.contains("<|user|>\nthird question<|end|>\n<|assistant|>\n"));
}

#[test]
fn the_format_is_read_from_the_file() {
    let model = model_with(
        LLAMA3,
        &["<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"],
    );
    let t = pocket_llm::chat::ChatTemplate::of_model(model.gguf().metadata(), model.tokenizer())
        .expect("template");
    assert_eq!(t.format(), &TurnFormat::Llama3);
}

#[test]
fn a_loaded_model_keeps_its_turn_end_text_after_dropping_the_vocabulary_arrays() {
    const ZEPHYR: &str = "{% for message in messages %}{% if message['role'] == 'user' %}{{ '<|user|>\\n' + message['content'] + eos_token }}{% elif message['role'] == 'assistant' %}{{ '<|assistant|>\\n' + message['content'] + eos_token }}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}";
    let model = model_with(ZEPHYR, &["<|user|>", "<|assistant|>"]);
    let meta = model.gguf().metadata();
    for key in ["tokenizer.ggml.tokens", "tokenizer.ggml.merges"] {
        assert!(!meta.contains(key), "{key} is the tokenizer's now");
    }
    assert!(meta.contains("tokenizer.chat_template"));
    let tok = model.tokenizer();
    let eos = tok.token_text(tok.eos().expect("eos")).expect("eos text");
    assert!(!eos.is_empty() && eos != "</s>", "{eos:?}");
    let t = pocket_llm::chat::ChatTemplate::of_model(meta, tok).expect("template");
    assert_eq!(t.format(), &TurnFormat::Tagged { end: eos.into() });
}
