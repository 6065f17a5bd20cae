//! The user goes on right after a turn ended: the endpointer took a pause inside a sentence
//! for its end ("what game has kings, | queens, bishops and pawns?"). Speech that starts
//! within `EndpointConfig::continue_within` of that turn's end of speech pauses its reply, as
//! any onset does, and the recognizer hears it as that utterance's continuation. Words beyond
//! the turn's: its reply stops, its exchange leaves the model's conversation, and the final of
//! both utterances is the next turn. No new words (a cough, the reply's echo): the reply plays
//! on. Later speech, a recognizer that cannot join them, or the option off: a barge-in as
//! before.

use super::harness::{Harness, Setup, voice};
use super::semantic_turn::semantic_setup;
use crate::types::Event;

const FIRST: &str = "what game has kings";
const BOTH: &str = "what game has kings, queens, bishops and pawns?";
const SECOND: &str = "queens, bishops and pawns";

/// A reply still playing when the user goes on (the mock voice speaks 10 ms per character).
const LONG: &[&str] = &[
    "A game of kings",
    " is a royal one,",
    " played at courts",
    " for many centuries",
    " by kings and queens.",
];

/// Semantic endpointing (the mock judge calls "...kings" whole), `first_reply`, and a
/// recognizer that can join two utterances.
fn setup(second_final: &'static str) -> Setup {
    setup_with(second_final, LONG.to_vec())
}

fn setup_with(second_final: &'static str, first_reply: Vec<&'static str>) -> Setup {
    Setup {
        replies: vec![first_reply, vec!["Chess."]],
        can_continue: true,
        ..semantic_setup(vec![FIRST, second_final], vec![FIRST, second_final])
    }
}

/// Speech 100..800 ms (its turn ends at 950 ms), `gap_ms` of silence, 600 ms of speech; runs
/// until the second utterance's final came and a reply played out.
fn ask_then_go_on(setup: Setup, gap_ms: u64) -> Harness {
    let mut h = Harness::asked(setup);
    h.silence(gap_ms);
    h.speak(&voice(600, 2));
    h.until(8000, |log| {
        let count = |f: fn(&Event) -> bool| log.iter().filter(|(_, e)| f(e)).count();
        count(|e| matches!(e, Event::FinalTranscript { .. })) >= 2
            && count(|e| matches!(e, Event::AudioFinished { .. })) >= 1
    });
    h
}

/// Runs until `n` replies played out.
fn until_played(h: &mut Harness, n: usize) {
    h.until(8000, |log| {
        log.iter()
            .filter(|(_, e)| matches!(e, Event::AudioFinished { .. }))
            .count()
            >= n
    });
}

fn replies(h: &Harness) -> Vec<String> {
    h.chat_calls()
        .into_iter()
        .filter(|c| c.starts_with("reply") || c == "forget")
        .collect()
}

/// No turn was taken back: no cut for going on, no exchange forgotten, the last turn not
/// joined (`case` names the run in the messages).
fn assert_not_joined(h: &Harness, case: &str) {
    assert!(
        !h.short().iter().any(|e| e.contains("Continued")),
        "{case}: {:#?}",
        h.short()
    );
    let calls = replies(h);
    assert!(!calls.iter().any(|c| c == "forget"), "{case}: {calls:?}");
    assert!(!h.last_metrics().continued, "{case}");
}

#[test]
fn speech_right_after_a_turn_goes_on_from_it_as_one_turn() {
    // 400 ms after the first speech ended: the turn ended at 950 ms, its reply is under way.
    let h = ask_then_go_on(setup(BOTH), 400);
    assert_eq!(h.asr_continued(), [true], "{:#?}", h.short());
    // Paused at the onset, as any reply; cut off once the recognizer heard new words.
    assert_eq!(h.count("paused 1"), 1, "{:#?}", h.short());
    let cut: Vec<String> = h.events_starting("interrupted");
    assert_eq!(cut.len(), 1, "{:#?}", h.short());
    assert!(
        cut[0].starts_with("interrupted 1 ") && cut[0].contains("Continued"),
        "{cut:?}"
    );
    let calls = replies(&h);
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(
        calls[0].starts_with(&format!("reply to {FIRST:?}")),
        "{calls:?}"
    );
    assert_eq!(
        calls[1], "forget",
        "the first exchange leaves the conversation"
    );
    assert!(
        calls[2].starts_with(&format!("reply to {BOTH:?}")),
        "{calls:?}"
    );
    let m = h.last_metrics();
    assert!(m.continued, "{m:?}");
    // Its stamps are the second utterance's: speech 1200..1800 ms.
    assert!(m.speech_end.is_some_and(|t| t >= 1700.0), "{m:?}");
    // Decoded as the user's own words, not as speech over the reply.
    assert_eq!(h.asr_over_reply(), [false, false]);
    h.finish();
}

#[test]
fn speech_right_after_a_turn_with_no_new_words_lets_its_reply_play_on() {
    // A cough or the reply's own echo: the recognizer hears the first words again, no more.
    let h = ask_then_go_on(setup(FIRST), 400);
    assert_eq!(h.asr_continued(), [true]);
    assert_eq!(h.count("paused 1"), 1, "{:#?}", h.short());
    assert_eq!(h.count("resumed 1"), 1, "{:#?}", h.short());
    assert_eq!(h.count("interrupted"), 0, "{:#?}", h.short());
    assert_eq!(h.count("audio finished 1"), 1, "{:#?}", h.short());
    let calls = replies(&h);
    assert!(!calls.iter().any(|c| c == "forget"), "{calls:?}");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(!h.last_metrics().continued);
    h.finish();
}

#[test]
fn speech_long_after_a_turn_is_a_turn_of_its_own() {
    // 1.5 s after the first speech ended: past `continue_within` (1.2 s).
    let h = ask_then_go_on(setup(SECOND), 1500);
    assert!(h.asr_continued().is_empty(), "never asked to go on");
    assert_not_joined(&h, "1.5 s later");
    h.finish();
}

#[test]
fn without_the_option_or_a_recognizer_that_can_join_speech_soon_after_is_a_barge_in() {
    for off in ["option", "recognizer"] {
        let mut s = setup(SECOND);
        match off {
            "option" => s.config.endpoint.continue_within = None,
            _ => s.can_continue = false,
        }
        let h = ask_then_go_on(s, 400);
        assert_not_joined(&h, off);
        let calls = replies(&h);
        assert!(
            calls
                .last()
                .is_some_and(|c| c.starts_with(&format!("reply to {SECOND:?}"))),
            "{off}: {calls:?}"
        );
        h.finish();
    }
}

#[test]
fn a_reply_that_played_out_while_the_user_went_on_is_taken_back_too() {
    // A short reply ends while the onset of the speech going on is being confirmed: the
    // recognizer already joined the two, so the first exchange leaves the conversation.
    let short = vec![
        "A", " game", " of", " kings", " is", " a", " royal", " one.",
    ];
    let mut h = ask_then_go_on(setup_with(BOTH, short), 400);
    assert_eq!(h.count("interrupted"), 0, "it played out: {:#?}", h.short());
    assert_eq!(h.asr_continued(), [true]);
    until_played(&mut h, 2);
    let calls = replies(&h);
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[1], "forget", "{calls:?}");
    assert!(
        calls[2].starts_with(&format!("reply to {BOTH:?}")),
        "{calls:?}"
    );
    assert!(h.last_metrics().continued);
    h.finish();
}
