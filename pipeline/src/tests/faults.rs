//! Fault scenarios: a reply superseded before its cut is confirmed, a lost or stalled output, a
//! lost input, a synthesis failure; each must end in an event the user sees and leave the next
//! turn working.

use std::time::Duration;

use super::harness::{Harness, Setup, has, short, voice};
use super::scenarios::{STORY, story_told};
use crate::{Event, State};

fn heard_of(h: &Harness, turn: u64) -> String {
    h.log
        .iter()
        .find_map(|(_, e)| match e {
            Event::Interrupted { turn: t, heard, .. } if t.0 == turn => Some(heard.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("turn {turn} was not interrupted: {:#?}", h.short()))
}

/// The chat's calls of the story told, cut to `heard`, and then "what time is it" answered.
fn story_cut_then_the_time(heard: &str) -> Vec<String> {
    vec![
        story_told(),
        format!("truncate to {heard:?}"),
        "reply to \"what time is it\": \"It is noon.\" (Complete)".to_string(),
    ]
}

/// The story (reply 1 to "tell me a story") has played for 400 ms.
fn story_playing(setup: Setup) -> Harness {
    let mut h = Harness::asked(setup);
    h.until(3000, has("audio started 1"));
    h.silence(400);
    h
}

/// A typed question over a reply that is playing: the new turn starts at once, before the
/// output confirmed the cut. The history must still keep only what was heard of the old reply,
/// and it must be cut before the new question joins it.
#[test]
fn typed_say_over_a_reply_keeps_only_what_was_heard() {
    let mut h = story_playing(Setup {
        finals: vec!["tell me a story"],
        replies: vec![STORY.to_vec(), vec!["It is noon."]],
        ..Setup::default()
    });
    h.handle.say("what time is it");
    h.until(5000, has("audio finished 3"));
    let h = h.finish();
    let heard = heard_of(&h, 1);
    assert!(
        !heard.is_empty() && heard.len() < STORY.concat().len(),
        "{heard:?}"
    );
    h.assert_has("interrupted 1 Speaking Superseded");
    assert_eq!(h.chat_calls(), story_cut_then_the_time(&heard));
}

/// A typed question over a reply the model is still writing: the output confirms the cut
/// (its `Truncate` reaches the model's lane) before the model has stopped writing the old
/// reply and looked at the new turn. The new turn must not then wait for that truncation
/// again: the soak saw "the output did not confirm where turn N was cut off" after every
/// such race, and the new reply came `cut_wait` late.
#[test]
fn a_cut_confirmed_while_the_model_still_writes_is_not_awaited_again() {
    let mut h = Harness::asked(Setup {
        finals: vec!["tell me a story"],
        replies: vec![STORY.to_vec(), vec!["It is noon."]],
        piece_delay: Duration::from_millis(300),
        ..Setup::default()
    });
    h.until(5000, has("audio started 1"));
    h.silence(50);
    h.handle.say("what time is it");
    let said = h.now;
    h.until(5000, has("audio started 3"));
    let started = h.time_of("audio started 3").expect("the new reply plays");
    h.until(5000, has("audio finished 3"));
    let h = h.finish();
    let errors = h.events_starting("error");
    assert!(errors.is_empty(), "{errors:?}\n{:#?}", h.short());
    let calls = h.chat_calls();
    assert_eq!(calls.len(), 3, "{calls:#?}");
    assert!(calls[0].ends_with("(Cancelled)"), "{calls:#?}");
    assert!(calls[1].starts_with("truncate to "), "{calls:#?}");
    assert!(
        calls[2].starts_with("reply to \"what time is it\""),
        "{calls:#?}"
    );
    // The old reply stops at its next piece (300 ms), the new one takes one piece: well
    // within the wait for a cut (`cut_wait`, 500 ms + a margin) on top.
    let late = started - said.as_millis() as u64;
    assert!(
        late < 1000,
        "the new reply started {late} ms after the question"
    );
}

/// Runs until the turn that `final_prefix` started is over (the state is back to listening;
/// events of one step are in stage order, so the log's last state may not be the latest).
pub(super) fn until_turn_over(h: &mut Harness, final_prefix: &str) {
    for _ in 0..500 {
        let started = h
            .log
            .iter()
            .any(|(_, e)| short(e).starts_with(final_prefix));
        if started && h.handle.state() == State::Listening {
            return;
        }
        h.tick(&[]);
    }
    panic!("the turn {final_prefix} did not end: {:#?}", h.short());
}

/// The output stops consuming mid-reply (a device that hangs, a suspended stream) with the
/// playback ring full, so synthesis waits for room: after `output_timeout` the turn ends with
/// what was heard and an event; the next turn shows its reply as text without waiting on the
/// output; once the output plays again, replies are spoken again.
#[test]
fn a_stalled_output_ends_the_turn_and_the_next_turns_work() {
    let mut setup = Setup {
        finals: vec!["tell me a story", "what time is it", "and the date"],
        replies: vec![STORY.to_vec(), vec!["It is noon."], vec!["It is May."]],
        ..Setup::default()
    };
    setup.config.playback_buffer = Duration::from_millis(300);
    let timeout = setup.config.output_timeout;
    let mut h = story_playing(setup);
    h.output_live = false;
    let stopped = h.now.as_millis() as u64;
    h.until(timeout.as_millis() as u64 + 3000, has("interrupted 1"));
    let lost_at = h.time_of("device lost speaker").expect("device lost event");
    assert!(
        lost_at >= stopped + timeout.as_millis() as u64 - 20
            && lost_at <= stopped + timeout.as_millis() as u64 + 500,
        "stopped at {stopped}, lost at {lost_at}"
    );
    let heard = heard_of(&h, 1);
    assert!(!heard.is_empty(), "part of the story played");
    h.assert_has("interrupted 1 Speaking OutputLost");
    // The output is still gone: the next reply is text only and the turn ends.
    h.speak(&voice(600, 2));
    until_turn_over(&mut h, "final \"what time is it\"");
    h.assert_has_exactly("text 3 \"It is noon.\"");
    // The output is back: replies are spoken again.
    h.output_live = true;
    h.silence(200);
    h.speak(&voice(600, 3));
    h.until(5000, has("audio finished 4"));
    let h = h.finish();
    assert_eq!(
        h.chat_calls(),
        [
            story_cut_then_the_time(&heard),
            vec!["reply to \"and the date\": \"It is May.\" (Complete)".to_string()],
        ]
        .concat()
    );
}

/// The speaker disappears mid-reply and the backend says so: the turn ends at once with what
/// was heard, and the next turn plays on the re-opened output.
#[test]
fn a_lost_speaker_ends_the_reply_at_once_and_the_next_turn_plays() {
    let mut h = story_playing(Setup {
        finals: vec!["tell me a story", "what time is it"],
        replies: vec![STORY.to_vec(), vec!["It is noon."]],
        ..Setup::default()
    });
    h.output_live = false;
    h.errors
        .device_lost("speaker", "the output device stopped or was removed");
    let stopped = h.now.as_millis() as u64;
    h.until(3000, has("interrupted 1"));
    assert!(h.time_of("interrupted 1").expect("interrupted") <= stopped + 20);
    h.assert_has_exactly("device lost speaker");
    let heard = heard_of(&h, 1);
    assert!(!heard.is_empty());
    // The backend re-opened the (new default) output.
    h.output_live = true;
    h.errors.device_restored("speaker", "laptop speakers");
    h.silence(200);
    h.assert_has_exactly("device restored speaker laptop speakers");
    h.speak(&voice(600, 2));
    h.until(5000, has("audio finished 3"));
    let h = h.finish();
    assert_eq!(h.chat_calls()[1], format!("truncate to {heard:?}"));
}

/// The microphone disappears while the user speaks: the half utterance is dropped (answering
/// half a question helps no one), a typed turn works meanwhile, and once the input is back the
/// next utterance is heard from its own start.
#[test]
fn a_lost_microphone_drops_the_half_utterance_and_the_next_turns_work() {
    let mut h = Harness::new(Setup {
        finals: vec!["what time is it"],
        replies: vec![vec!["It is May."], vec!["It is noon."]],
        ..Setup::default()
    });
    h.silence(100);
    h.speak(&voice(500, 1));
    h.assert_has_exactly("speech started");
    h.input_live = false;
    h.errors
        .device_lost("microphone", "the input device stopped or was removed");
    h.silence(300);
    h.assert_has_exactly("device lost microphone");
    h.handle.say("what is the date");
    h.until(3000, has("audio finished 1"));
    // The input is back (re-opened).
    h.input_live = true;
    h.errors
        .device_restored("microphone", "built-in microphone");
    h.silence(300);
    h.assert_has_exactly("device restored microphone built-in microphone");
    h.speak(&voice(600, 2));
    h.until(5000, has("audio finished 2"));
    let h = h.finish();
    h.assert_has_exactly("final \"what time is it\" -> 2");
    // The recognizer finished only the new utterance (its 200 ms pre-roll, 600 ms of speech,
    // 300 ms of end silence), not the lost one.
    assert_eq!(h.asr_samples(), vec![(200 + 600 + 300) * 16]);
}

/// Synthesis fails on one segment: an error event, the rest of the reply still plays, what
/// was heard leaves the failed words out, and the next turn works.
#[test]
fn a_failed_segment_is_skipped_and_the_rest_of_the_reply_plays() {
    let mut h = Harness::asked(Setup {
        finals: vec!["tell me a story", "go on"],
        replies: vec![STORY.to_vec(), vec!["It is noon."]],
        tts_fails_on: Some("king"),
        ..Setup::default()
    });
    h.until(3000, has("audio started 1"));
    h.silence(100);
    h.speak(&voice(400, 2));
    h.until(5000, has("audio finished 3"));
    let h = h.finish();
    println!(
        "{:#?}",
        h.log
            .iter()
            .map(|(t, e)| format!("{t} {}", short(e)))
            .collect::<Vec<_>>()
    );
    h.assert_has("error speech synthesis failed");
    let heard = heard_of(&h, 1);
    assert!(!heard.contains("king"), "{heard:?}");
    assert!(
        heard.starts_with("Once upon a time, The first"),
        "{heard:?}"
    );
}
