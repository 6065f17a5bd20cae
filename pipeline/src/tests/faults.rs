//! Fault scenarios: a reply superseded before its cut is confirmed, a lost or stalled output, a
//! lost input, a synthesis failure; each must end in an event the user sees and leave the next
//! turn working.

use super::harness::{Harness, Setup};
use super::scenarios::{STORY, has, voice};
use crate::Event;

fn heard_of(h: &Harness, turn: u64) -> String {
    h.log
        .iter()
        .find_map(|(_, e)| match e {
            Event::Interrupted { turn: t, heard, .. } if t.0 == turn => Some(heard.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("turn {turn} was not interrupted: {:#?}", h.short()))
}

/// A typed question over a reply that is playing: the new turn starts at once, before the
/// output confirmed the cut. The history must still keep only what was heard of the old reply,
/// and it must be cut before the new question joins it.
#[test]
fn typed_say_over_a_reply_keeps_only_what_was_heard() {
    let mut h = Harness::new(Setup {
        finals: vec!["tell me a story"],
        replies: vec![STORY.to_vec(), vec!["It is noon."]],
        ..Setup::default()
    });
    h.silence(100);
    h.speak(&voice(700, 1));
    h.until(3000, has("audio started 1"));
    h.silence(400);
    h.handle.say("what time is it");
    h.until(5000, has("audio finished 3"));
    let h = h.finish();
    let heard = heard_of(&h, 1);
    assert!(
        !heard.is_empty() && heard.len() < STORY.concat().len(),
        "{heard:?}"
    );
    assert!(
        h.short()
            .iter()
            .any(|e| e.starts_with("interrupted 1 Speaking Superseded")),
        "{:#?}",
        h.short()
    );
    assert_eq!(
        h.chat_calls(),
        vec![
            format!(
                "reply to \"tell me a story\": {:?} (Complete)",
                STORY.concat()
            ),
            format!("truncate to {heard:?}"),
            "reply to \"what time is it\": \"It is noon.\" (Complete)".to_string(),
        ]
    );
}
