//! Replies made ahead of time: from the recognizer's early final, during the end-of-speech
//! wait, the model and synthesis prepare the reply into the held output. Confirmed by the
//! final, it plays at the endpoint; if the user goes on speaking it is thrown away with no
//! sound, no event and no trace in the conversation.

use std::time::Duration;

use super::harness::{Harness, Setup, assert_events, has, voice};
use super::scenarios::TIME_ASKED;

/// Speech 100..800 ms with a 200 ms pre-roll: 900 ms of utterance audio is 200 ms into the
/// end-of-speech wait (the endpoint comes at 300 ms of silence).
const EARLY_AFTER_MS: usize = 900;

/// First sample (ms) at which the output played something.
fn first_sound_ms(h: &Harness) -> Option<u64> {
    h.output
        .iter()
        .position(|s| *s != 0.0)
        .map(|i| (i / 16) as u64)
}

/// A loop whose recognizer offers `early` (or the final itself) as the early final, after the
/// user said 700 ms of something (from 100 ms on).
fn asked(finals: &'static str, early: Option<&'static str>, reply: Vec<&'static str>) -> Harness {
    Harness::asked(Setup {
        finals: vec![finals],
        early_finals: early.into_iter().collect(),
        replies: vec![reply],
        early_final_after_ms: Some(EARLY_AFTER_MS),
        ..Setup::default()
    })
}

#[test]
fn a_reply_made_ahead_plays_at_the_endpoint() {
    let mut h = asked(
        "what time is it",
        None,
        vec!["It is", " noon", ". Have", " a nice", " day."],
    );
    h.until(5000, has("audio finished"));
    let h = h.finish();
    // To the user a normal turn: nothing shows before the final, the text so far comes at once.
    assert_events(
        &h,
        &[
            &TIME_ASKED,
            &[
                "text 1 \"It is noon. Have a nice day.\"",
                "audio started 1",
                "latency 1 complete=true",
                "state Speaking",
                "audio finished 1",
                "state Listening",
            ],
        ],
    );
    assert_eq!(h.time_of("speech stopped"), Some(1100));
    // Ready before the endpoint, held silent until it: sound starts at the next callback.
    assert_eq!(first_sound_ms(&h), Some(1100));
    let report = h.handle.report();
    let m = &report.turns[0].metrics;
    assert!(m.speculative, "{m:?}");
    assert_eq!(m.eou, Some(1100.0));
    // Made from the early final, which came before the model's first piece.
    assert!(
        m.early_final
            .is_some_and(|at| at <= m.llm_first_token.unwrap_or(0.0)),
        "{m:?}"
    );
    assert_eq!(m.response_latency(), Some(10.0), "{m:?}");
    assert!(m.tts_first_chunk < m.eou, "{m:?}");
    assert_eq!(report.turns[0].reply_text, "It is noon. Have a nice day.");
    assert_eq!(
        h.chat_calls(),
        vec!["reply to \"what time is it\": \"It is noon. Have a nice day.\" (Complete)"]
    );
}

#[test]
fn a_user_who_goes_on_speaking_never_hears_the_reply_made_ahead() {
    // The early final is the words before the pause.
    let mut h = asked(
        "what is the capital of france",
        Some("what is the capital of"),
        vec!["Paris", " is the capital."],
    );
    // 250 ms of pause (the early final comes at 200 ms, the endpoint would at 300), then more.
    h.silence(250);
    let resumed = h.now.as_millis() as u64;
    h.speak(&voice(500, 2));
    h.until(5000, has("audio finished"));
    let h = h.finish();
    // No trace of the reply made ahead: the turn's events are those of a reply made at the
    // endpoint (its pieces one by one).
    let events = h.short();
    let fin = events
        .iter()
        .position(|e| e == "final \"what is the capital of france\" -> 3")
        .expect("the final");
    assert!(
        !events[..fin]
            .iter()
            .any(|e| e.starts_with("text") || e.starts_with("state T")),
        "{events:?}"
    );
    assert_eq!(
        events[fin + 1..fin + 4],
        [
            "state Thinking",
            "text 3 \"Paris\"",
            "text 3 \" is the capital.\""
        ],
        "{events:?}"
    );
    // Nothing sounded before the real turn's endpoint.
    let eou = h.time_of("speech stopped").expect("endpoint");
    assert!(eou > resumed + 500, "{eou}");
    assert!(first_sound_ms(&h) >= Some(eou), "{:?}", first_sound_ms(&h));
    // The model made the early reply, took it back, and answered the whole question.
    let calls = h.chat_calls();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(calls[0].starts_with("reply to \"what is the capital of\""));
    assert_eq!(calls[1], "forget");
    assert_eq!(
        calls[2],
        "reply to \"what is the capital of france\": \"Paris is the capital.\" (Complete)"
    );
    let report = h.handle.report();
    assert_eq!(report.turns.len(), 1, "the unheard reply is no turn");
    assert_eq!(report.turns[0].user_text, "what is the capital of france");
}

#[test]
fn a_different_final_replaces_the_reply_made_ahead() {
    let mut h = asked(
        "what time is it",
        Some("what tie is it"),
        vec!["It is", " noon."],
    );
    h.until(5000, has("audio finished"));
    let h = h.finish();
    h.assert_has_exactly("final \"what time is it\" -> 3");
    let calls = h.chat_calls();
    assert_eq!(calls[1], "forget", "{calls:?}");
    assert_eq!(
        calls[2],
        "reply to \"what time is it\": \"It is noon.\" (Complete)"
    );
    let m = &h.handle.report().turns[0].metrics;
    assert!(!m.speculative, "made at the endpoint: {m:?}");
    assert_eq!(m.early_final, None, "{m:?}");
}

/// One question answered by a scripted reply at `piece_delay` a piece under `config`, to its
/// end; the turn's record (its reply text checked against the pieces).
fn answered_once(
    question: &'static str,
    reply: &[&'static str],
    piece_delay: Duration,
    config: crate::config::PipelineConfig,
) -> crate::metrics::TurnRecord {
    let mut h = Harness::asked(Setup {
        finals: vec![question],
        replies: vec![reply.to_vec()],
        piece_delay,
        config,
        ..Setup::default()
    });
    h.until(5000, has("audio finished"));
    let h = h.finish();
    let record = h.handle.report().turns[0].clone();
    assert_eq!(record.reply_text, reply.concat());
    record
}

#[test]
fn a_slow_first_phrase_is_cut_when_due() {
    // A model at 50 ms a piece with no phrase boundary in sight: the first piece ends at the
    // first word after 150 ms from the first token, not at the sentence's end.
    let reply = [
        "Seven", " times", " eight", " equals", " fifty", "-six", ".",
    ];
    let run = |due: Option<Duration>| {
        let mut config = Setup::default().config;
        config.first_piece_due = due;
        let record = answered_once(
            "what is seven times eight",
            &reply,
            Duration::from_millis(50),
            config,
        );
        let m = record.metrics;
        m.first_segment.zip(m.llm_first_token).map(|(s, t)| s - t)
    };
    // " equals" arrives 150 ms after "Seven": "Seven times eight" goes to synthesis then.
    assert_eq!(run(Some(Duration::from_millis(150))), Some(150.0));
    // Without the rule the first piece is the whole sentence, at "." 300 ms after "Seven".
    assert_eq!(run(None), Some(300.0));
}

#[test]
fn a_later_phrase_is_cut_when_the_audio_ahead_of_it_runs_out() {
    // A short first phrase ("We are", 60 ms of audio here), then a model at 30 ms a word
    // writing the rest of the sentence: waiting for its end leaves the output dry for ~150 ms
    // (15 callbacks); cut at the next word when under 300 ms of audio is left, the pieces
    // keep it fed but for a few callbacks while the model is still two words from a cut.
    let reply = [
        "We", " are", " in", " the", " same", " family", " for", " ten", " years", ".",
    ];
    let run = |below: Option<Duration>| {
        let mut config = Setup::default().config;
        config.later_piece_due_below = below;
        answered_once(
            "how long are we a family",
            &reply,
            Duration::from_millis(30),
            config,
        )
        .underruns
        .expect("a paced output counts underruns")
    };
    let waiting = run(None);
    let cut = run(Some(Duration::from_millis(300)));
    assert!(waiting >= 10, "the output ran dry waiting: {waiting}");
    assert!(cut * 3 <= waiting, "cut when due: {cut} against {waiting}");
}
