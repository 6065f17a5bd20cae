//! Faults in the real language model under the pipeline (a tiny random qwen3 written by
//! pocket-llm's own writer): a model file truncated while the engine runs, and a turn too long
//! for the context. Each must give an event and leave the next turn working.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use pocket_llm::chat::HistoryPolicy;
use pocket_llm::synth::{SynthQuant, SynthShape, synth_bytes};

use super::faults::until_turn_over;
use super::harness::{Harness, Setup};
use crate::engines::llm::{LlmChat, VoiceChatConfig};

/// A tiny model in F16 (used in place, not repacked, on every CPU) at `path`.
fn write_model(path: &Path) {
    let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::F16, 5).expect("synth model");
    std::fs::write(path, bytes).expect("write model");
}

fn chat(path: &Path, context: usize) -> LlmChat {
    LlmChat::load_with(
        path,
        VoiceChatConfig {
            context,
            threads: 1,
            max_reply_tokens: 8,
            history: HistoryPolicy::AllThatFit,
            ..VoiceChatConfig::default()
        },
    )
    .expect("model loads")
}

/// The loop answering with a fresh tiny model of `context` tokens, written into a temporary
/// folder (returned to keep it while the test runs) at the returned path.
fn loop_on_a_model(context: usize) -> (tempfile::TempDir, PathBuf, Harness) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("model.gguf");
    write_model(&path);
    let h = Harness::new(Setup {
        chat: Some(Box::new(chat(&path, context))),
        ..Setup::default()
    });
    (dir, path, h)
}

/// Types `text` and runs until its turn is over.
fn typed_turn(h: &mut Harness, text: &str) {
    h.handle.say(text);
    until_turn_over(h, &format!("final {text:?}"));
}

/// The model file is truncated (as `cp` over it does first) between two turns: no crash (a
/// mapped page past the new end would be SIGBUS), an event naming the file, the next turns
/// answered by the model as loaded.
#[test]
fn a_model_file_truncated_under_a_loaded_engine_gives_an_event_and_no_crash() {
    let (_dir, path, mut h) = loop_on_a_model(512);
    typed_turn(&mut h, "hello there");
    assert_eq!(h.events_starting("error"), Vec::<String>::new());
    OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("open model")
        .set_len(4096)
        .expect("truncate model");
    typed_turn(&mut h, "are you still there");
    typed_turn(&mut h, "one more time");
    let h = h.finish();
    let errs = h.events_starting("error");
    assert_eq!(errs.len(), 1, "one event for one change: {errs:#?}");
    assert!(
        errs[0].contains("model.gguf") && errs[0].contains("changed on disk"),
        "{errs:#?}"
    );
    // Both later turns were answered.
    h.assert_has("text 2 ");
    h.assert_has("text 3 ");
}

/// A turn that cannot fit the context even alone: an error event that says so, the turn
/// ends, and the next short turn is answered.
#[test]
fn a_turn_too_long_for_the_context_gives_an_error_and_the_next_turn_works() {
    let (_dir, _, mut h) = loop_on_a_model(160);
    let long = "tell me about the sea and the sky ".repeat(20);
    h.handle.say(&long);
    until_turn_over(&mut h, "final \"tell me about");
    typed_turn(&mut h, "hi");
    let h = h.finish();
    let errs = h.events_starting("error");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].contains("too long"), "{errs:#?}");
    let events = h.short();
    assert!(
        events.iter().any(|e| e.starts_with("text 2 ")),
        "{:#?}",
        events.iter().map(|e| short_of(e)).collect::<Vec<_>>()
    );
}

fn short_of(e: &str) -> &str {
    &e[..e.len().min(80)]
}
