//! ChatSession behaviour on a tiny random qwen3 written by the crate's own writer: the KV of
//! earlier turns is reused, replies stream and stop on cancellation within one token, an
//! interrupted reply can be cut to what was heard, and a full context drops old turns (in
//! place, without running the kept ones again; never the new turn) or gives an error, never
//! a panic; the history policy bounds what the model sees.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use pocket_llm::chat::{HistoryPolicy, Role};
use pocket_llm::gguf::GgufFile;
use pocket_llm::sampler::SamplerConfig;
use pocket_llm::synth::{SynthQuant, SynthShape, synth_bytes};
use pocket_llm::{ChatSession, LlmError, LoadOptions, Model, SessionConfig};

fn tiny() -> Arc<Model> {
    let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::Q8_0, 3).expect("synth");
    Model::from_gguf(
        GgufFile::from_bytes(bytes).expect("gguf"),
        LoadOptions::default(),
    )
    .expect("model")
}

fn config(ctx: usize) -> SessionConfig {
    SessionConfig {
        system_prompt: Some("You are a test.".into()),
        max_context: ctx,
        threads: 2,
        sampler: SamplerConfig::greedy(),
        thinking: false,
        max_reply_tokens: 8,
        history: HistoryPolicy::AllThatFit,
        avoid_copy_ngram: 0,
        avoid_echo_words: 0,
        drafts: pocket_llm::Drafts::default(),
    }
}

fn go() -> impl FnMut(&str) -> ControlFlow<()> {
    |_| ControlFlow::Continue(())
}

#[test]
fn later_turns_only_run_new_tokens() {
    let mut chat = ChatSession::new(tiny(), config(1024)).expect("chat");
    let never = AtomicBool::new(false);
    let first = chat
        .reply("Hello there, how are you?", &never, &mut go())
        .expect("reply");
    assert!(first.tokens > 0 && !first.cancelled);
    let cached = chat.session().tokens().to_vec();
    let second = chat
        .reply("Tell me more.", &never, &mut go())
        .expect("reply");
    let now = chat.session().tokens();
    assert_eq!(
        &now[..cached.len()],
        &cached[..],
        "the first turn stays in the cache"
    );
    // Only the new turn (plus the first reply's last, unrun token) was prefilled.
    assert!(
        second.prefill_tokens + cached.len() <= now.len() && second.prefill_tokens < 40,
        "second turn ran {} tokens with {} already cached",
        second.prefill_tokens,
        cached.len()
    );
    assert_eq!(chat.history().len(), 4);
    // Same conversation from scratch gives the same reply (the cache changes nothing).
    let mut fresh = ChatSession::new(tiny(), config(1024)).expect("chat");
    fresh
        .reply("Hello there, how are you?", &never, &mut go())
        .expect("reply");
    let again = fresh
        .reply("Tell me more.", &never, &mut go())
        .expect("reply");
    assert_eq!(again.text, second.text);
}

#[test]
fn a_prefilled_user_turn_leaves_one_token_to_run_and_the_same_reply() {
    let never = AtomicBool::new(false);
    let mut plain = ChatSession::new(tiny(), config(1024)).expect("chat");
    let expected = plain
        .reply("What is the time?", &never, &mut go())
        .expect("reply");

    let mut chat = ChatSession::new(tiny(), config(1024)).expect("chat");
    assert_eq!(
        chat.prefill_user("What is the time?", &never)
            .expect("early"),
        0,
        "nothing to build on before prime"
    );
    chat.prime().expect("prime");
    // A wrong guess first: the right one reuses the common prefix.
    let wrong = chat.prefill_user("What is the", &never).expect("early");
    let right = chat
        .prefill_user("What is the time?", &never)
        .expect("early");
    assert!(
        wrong > 0 && right > 0 && right < wrong,
        "{wrong} then {right}"
    );
    assert!(chat.history().is_empty(), "a prefill is not a turn");
    let reply = chat
        .reply("What is the time?", &never, &mut go())
        .expect("reply");
    assert_eq!(
        reply.prefill_tokens, 1,
        "only the last prompt token runs again"
    );
    assert_eq!(reply.text, expected.text);
    assert_eq!(chat.history().len(), 2);
}

#[test]
fn a_forgotten_exchange_leaves_no_trace() {
    let never = AtomicBool::new(false);
    let mut plain = ChatSession::new(tiny(), config(1024)).expect("chat");
    plain
        .reply("Hello there.", &never, &mut go())
        .expect("reply");
    let expected = plain
        .reply("What is the time?", &never, &mut go())
        .expect("reply");

    let mut chat = ChatSession::new(tiny(), config(1024)).expect("chat");
    assert!(!chat.forget_last_exchange(), "nothing to take back yet");
    chat.reply("Hello there.", &never, &mut go())
        .expect("reply");
    // A reply made ahead of time to words the user then went on from.
    chat.reply("What is the", &never, &mut go()).expect("reply");
    assert!(chat.forget_last_exchange());
    assert!(!chat.forget_last_exchange(), "only once");
    assert_eq!(chat.history(), plain.history().split_at(2).0);
    let reply = chat
        .reply("What is the time?", &never, &mut go())
        .expect("reply");
    assert_eq!(reply.text, expected.text);
    assert_eq!(chat.history(), plain.history());
    assert_eq!(chat.session().tokens(), plain.session().tokens());
    // The first turn's tokens stayed in the cache: only the new turn ran.
    assert!(
        reply.prefill_tokens < plain.session().len() / 2,
        "{} of {}",
        reply.prefill_tokens,
        plain.session().len()
    );
}

#[test]
fn cancellation_stops_within_one_token() {
    let mut chat = ChatSession::new(tiny(), config(1024)).expect("chat");
    let cancel = AtomicBool::new(true);
    let out = chat.reply("Hi", &cancel, &mut go()).expect("reply");
    assert!(out.cancelled);
    assert_eq!(out.tokens, 0);
    // Raised by the consumer after the second piece: no token is generated after it.
    let cancel = AtomicBool::new(false);
    let mut pieces = 0;
    let out = chat
        .reply("Hi again", &cancel, &mut |_| {
            pieces += 1;
            if pieces == 2 {
                cancel.store(true, Ordering::Release);
            }
            ControlFlow::Continue(())
        })
        .expect("reply");
    assert!(out.cancelled);
    assert_eq!(pieces, 2);
    assert!(out.tokens <= 2 + 1, "{} tokens", out.tokens);
    // Break from the callback stops too.
    let never = AtomicBool::new(false);
    let out = chat
        .reply("Once more", &never, &mut |_| ControlFlow::Break(()))
        .expect("reply");
    assert!(out.cancelled);
    assert!(out.text.chars().count() > 0);
}

#[test]
fn interrupted_reply_keeps_only_what_was_heard() {
    let mut chat = ChatSession::new(tiny(), config(1024)).expect("chat");
    let never = AtomicBool::new(false);
    let out = chat
        .reply("Say something long.", &never, &mut go())
        .expect("reply");
    let heard: String = out.text.chars().take(2).collect();
    chat.truncate_last_reply(&heard);
    let last = chat.history().last().expect("turn");
    assert_eq!(
        (last.role, last.content.as_str()),
        (Role::Assistant, heard.as_str())
    );
    let next = chat.reply("And then?", &never, &mut go()).expect("reply");
    assert!(next.tokens > 0);
    chat.reset();
    assert!(chat.history().is_empty());
}

#[test]
fn full_context_drops_old_turns_or_errors() {
    let mut chat = ChatSession::new(tiny(), config(96)).expect("chat");
    let never = AtomicBool::new(false);
    let mut dropped = 0;
    for i in 0..12 {
        let out = chat
            .reply(
                &format!("Turn number {i}: the quick brown fox."),
                &never,
                &mut go(),
            )
            .expect("reply");
        dropped += out.dropped_turns;
        assert!(chat.session().len() <= chat.session().capacity());
    }
    assert!(dropped > 0, "old turns were dropped");
    let before = chat.history().len();
    let long = "word ".repeat(400);
    match chat.reply(&long, &never, &mut go()) {
        Err(LlmError::ContextFull { .. }) => {}
        other => panic!("expected ContextFull, got {other:?}"),
    }
    assert_eq!(
        chat.history().len(),
        before,
        "a rejected turn leaves the history alone"
    );
}

/// The text of the newest user turn in the cache: what the model answers.
fn last_user_turn(chat: &ChatSession) -> String {
    let model = chat.session().model().clone();
    let text = model
        .tokenizer()
        .decode_with(chat.session().tokens(), true)
        .expect("decode");
    const HEADER: &str = "<|im_start|>user\n";
    let at = text.rfind(HEADER).expect("a user turn") + HEADER.len();
    let end = text[at..].find("<|im_end|>").map_or(text.len(), |e| at + e);
    text[at..end].to_string()
}

#[test]
fn a_full_context_slides_without_running_the_kept_turns_again() {
    let mut chat = ChatSession::new(tiny(), config(256)).expect("chat");
    let never = AtomicBool::new(false);
    let mut slides = 0;
    let mut max_prefill = 0;
    for i in 0..60 {
        let question = format!("Question {i}: say the word number {i}.");
        let out = chat.reply(&question, &never, &mut go()).expect("reply");
        assert_eq!(
            last_user_turn(&chat),
            question,
            "turn {i} answers its own question"
        );
        assert!(chat.session().len() <= chat.session().capacity());
        if out.dropped_turns > 0 {
            slides += 1;
            // Dropping at once down to half the context: several turns at a time.
            assert!(
                out.dropped_turns >= 2,
                "turn {i} dropped {}",
                out.dropped_turns
            );
            assert!(
                chat.session().len() <= 256 / 2 + 40,
                "{}",
                chat.session().len()
            );
        }
        if i > 0 {
            // Beyond its own words: the ChatML headers and the last reply's unrun token.
            let own = chat
                .session()
                .model()
                .tokenizer()
                .encode(&question, false)
                .len();
            max_prefill = max_prefill.max(out.prefill_tokens.saturating_sub(own));
        }
        // The history and the transcript agree: user and assistant alternate, newest last.
        let h = chat.history();
        assert_eq!(h.len() % 2, 0);
        assert_eq!(h[h.len() - 2].content, question);
    }
    assert!(slides >= 3, "the window moved {slides} times");
    assert!(slides <= 20, "the window moved {slides} times: too often");
    // Every turn ran only its own suffix, before and after the window moved (the kept half
    // of the window, over 100 tokens, was never run again).
    assert!(
        max_prefill < 40,
        "a turn prefilled {max_prefill} tokens beyond its words"
    );
}

#[test]
fn a_slid_window_answers_like_the_cache_would_if_the_turns_were_never_there() {
    // Dropping turns in place keeps the system prompt's cache and the kept turns' tokens: the
    // transcript after a slide is exactly system + kept turns + the new turn.
    let never = AtomicBool::new(false);
    let mut chat = ChatSession::new(
        tiny(),
        SessionConfig {
            history: HistoryPolicy::LastTurns(1),
            ..config(1024)
        },
    )
    .expect("chat");
    for q in ["First question?", "Second question?", "Third question?"] {
        chat.reply(q, &never, &mut go()).expect("reply");
    }
    let h = chat.history();
    assert_eq!(h.len(), 4, "one earlier exchange and the newest");
    assert_eq!(h[0].content, "Second question?");
    assert_eq!(h[2].content, "Third question?");
    let model = chat.session().model().clone();
    let text = model
        .tokenizer()
        .decode_with(chat.session().tokens(), true)
        .expect("decode");
    assert!(
        text.starts_with(
            "<|im_start|>system\nYou are a test.<|im_end|>\n<|im_start|>user\nSecond question?"
        ),
        "{text}"
    );
    assert!(!text.contains("First question"), "{text}");
}

#[test]
fn last_zero_asks_every_question_afresh() {
    let never = AtomicBool::new(false);
    let fresh_cfg = SessionConfig {
        history: HistoryPolicy::LastTurns(0),
        ..config(1024)
    };
    let mut chat = ChatSession::new(tiny(), fresh_cfg.clone()).expect("chat");
    chat.reply("Something else first.", &never, &mut go())
        .expect("reply");
    let second = chat
        .reply("What is the time?", &never, &mut go())
        .expect("reply");
    assert_eq!(second.dropped_turns, 1);
    let mut alone = ChatSession::new(tiny(), fresh_cfg).expect("chat");
    let first = alone
        .reply("What is the time?", &never, &mut go())
        .expect("reply");
    // Same prompt, and the system prompt's cache is the same computation: same reply.
    assert_eq!(second.text, first.text);
    assert_eq!(chat.history().len(), 2);
}

/// The rule against copying the previous reply stands aside when the user asks the same
/// question again (a repeated question deserves the same answer); for another question it holds
/// (the rule itself: the sampler's tests; which questions are the same: `same_question`'s).
#[test]
fn the_same_question_again_gets_the_same_reply_despite_the_copy_rule() {
    let never = AtomicBool::new(false);
    let cfg = |avoid_copy_ngram| SessionConfig {
        history: HistoryPolicy::LastTurns(0),
        avoid_copy_ngram,
        ..config(1024)
    };
    let ask_twice = |avoid: usize, again: &str| {
        let mut chat = ChatSession::new(tiny(), cfg(avoid)).expect("chat");
        let first = chat
            .reply("How many days are in a week?", &never, &mut go())
            .expect("reply");
        let second = chat.reply(again, &never, &mut go()).expect("reply");
        (first, second)
    };
    let (first, again) = ask_twice(4, "Um, how many days are there in a week?");
    assert!(first.tokens >= 4, "a reply long enough to copy: {first:?}");
    // No history: the same context, so the same greedy reply, copy rule or not.
    assert_eq!(again.text, first.text);
    // The same words as another question (one content word apart) are held to the rule: the
    // reply the model would give without it is a copy of the first, and it is not allowed.
    let (first, other) = ask_twice(4, "How many days are in a year?");
    let (_, free) = ask_twice(0, "How many days are in a year?");
    if free.text == first.text {
        assert_ne!(other.text, first.text);
    }
}

/// After a reset a question gets the reply a fresh session gives: the copy guard
/// (`avoid_copy_ngram`) forgets the reply before the reset with the rest of the conversation.
#[test]
fn a_reset_session_answers_like_a_fresh_one() {
    let never = AtomicBool::new(false);
    let cfg = SessionConfig {
        avoid_copy_ngram: 2,
        ..config(1024)
    };
    let mut fresh = ChatSession::new(tiny(), cfg.clone()).expect("chat");
    let want = fresh
        .reply("What is the time?", &never, &mut go())
        .expect("reply");
    let mut chat = ChatSession::new(tiny(), cfg).expect("chat");
    chat.reply("What is the time?", &never, &mut go())
        .expect("reply");
    chat.reset();
    let got = chat
        .reply("What is the time?", &never, &mut go())
        .expect("reply");
    assert!(want.tokens >= 2, "{want:?}");
    assert_eq!(got.text, want.text);
}

/// A model loaded from a file never reads it again: the file truncated underneath (as `cp`
/// over it does first) cannot fault the process, and replies go on.
#[test]
fn a_loaded_model_survives_its_file_being_truncated() {
    let path =
        std::env::temp_dir().join(format!("pocket-llm-truncated-{}.gguf", std::process::id()));
    // F16 matrices are used in place (no interleaved kernels): before `detach` they were
    // read from the mapping.
    let bytes = synth_bytes(SynthShape::TinyQwen3, SynthQuant::F16, 3).expect("synth");
    std::fs::write(&path, &bytes).expect("write");
    let model = Model::load(&path).expect("model");
    let mut chat = ChatSession::new(model, config(256)).expect("chat");
    let never = AtomicBool::new(false);
    let before = chat.reply("Hello.", &never, &mut go()).expect("reply");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("open")
        .set_len(0)
        .expect("truncate");
    chat.reset();
    let after = chat.reply("Hello.", &never, &mut go()).expect("reply");
    let _ = std::fs::remove_file(&path);
    assert_eq!(after.text, before.text, "the same weights answer");
}

#[test]
fn judging_a_turn_end_changes_nothing_but_the_cache() {
    let never = AtomicBool::new(false);
    let mut plain = ChatSession::new(tiny(), config(1024)).expect("chat");
    plain
        .reply("Hello there.", &never, &mut go())
        .expect("reply");
    let expected = plain
        .reply("What is the time?", &never, &mut go())
        .expect("reply");

    let mut chat = ChatSession::new(tiny(), config(1024)).expect("chat");
    chat.reply("Hello there.", &never, &mut go())
        .expect("reply");
    assert_eq!(
        chat.turn_end_probability(" ?! ", &never).expect("judge"),
        None
    );
    for words in ["What is the", "What is the time?"] {
        let p = chat
            .turn_end_probability(words, &never)
            .expect("judge")
            .expect("a probability");
        assert!((0.0..=1.0).contains(&p), "{words}: {p}");
    }
    assert_eq!(chat.history().len(), 2, "a judgement is not a turn");
    let judged = chat.session().tokens().to_vec();
    let reply = chat
        .reply("What is the time?", &never, &mut go())
        .expect("reply");
    let now = chat.session().tokens();
    assert_eq!(
        &now[..judged.len()],
        &judged[..],
        "the judged words stay in the cache"
    );
    assert_eq!(
        judged.len() + reply.prefill_tokens + reply.tokens - 1,
        now.len(),
        "only the tokens after the judged words run for the reply"
    );
    assert_eq!(reply.text, expected.text);
    let cancelled = AtomicBool::new(true);
    assert_eq!(
        chat.turn_end_probability("Something new entirely", &cancelled)
            .expect("judge"),
        None
    );
}
