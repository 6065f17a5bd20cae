//! The soak's own checks: the plan is seeded and mixes every kind of turn; the history
//! comparison accepts exactly what was heard.

use pocket_llm::chat::Message;

use super::plan::{Barge, Input, plan};
use super::{Exchange, SoakOptions, SoakReport, history_matches};

fn ex(user: &str, assistant: &str, optional: bool) -> Exchange {
    Exchange {
        user: user.into(),
        assistant: assistant.into(),
        optional,
    }
}

fn hist(pairs: &[(&str, &str)]) -> Vec<Message> {
    pairs
        .iter()
        .flat_map(|(u, a)| [Message::user(*u), Message::assistant(*a)])
        .collect()
}

#[test]
fn the_plan_is_seeded_and_mixes_every_kind_of_turn() {
    let opts = SoakOptions::default();
    let a = plan(&opts);
    assert_eq!(a, plan(&opts));
    assert_ne!(
        a,
        plan(&SoakOptions {
            seed: 2,
            ..opts.clone()
        })
    );
    let count = |f: &dyn Fn(&super::plan::Step) -> bool| a.iter().filter(|s| f(s)).count();
    assert!(count(&|s| s.input == Input::Typed) > 20);
    assert!(count(&|s| s.input == Input::PushToTalk) > 20);
    assert!(count(&|s| s.barge == Barge::Thinking) > 10);
    assert!(count(&|s| s.barge == Barge::Speaking) > 10);
    assert!(count(&|s| s.reset_before) > 2);
    // A cut-in comes by voice or the button, and never waits for a reset.
    for w in a.windows(2) {
        if matches!(w[0].barge, Barge::Thinking | Barge::Speaking) {
            assert_ne!(w[1].input, Input::Typed);
            assert!(!w[1].reset_before);
        }
    }
    assert!(matches!(
        a.last().map(|s| s.barge),
        Some(Barge::None | Barge::ResetWhileSpeaking)
    ));
}

#[test]
fn history_must_hold_what_was_heard() {
    let expected = [
        ex("say apple", "Apple.", false),
        ex("say pear", "The word", false),
    ];
    // The newest exchanges, exactly (white space aside).
    assert!(history_matches(&hist(&[("say pear", " The word ")]), &expected).is_ok());
    assert!(
        history_matches(
            &hist(&[("say apple", "Apple."), ("say pear", "The word")]),
            &expected
        )
        .is_ok()
    );
    // The whole reply where only part was heard.
    let e = history_matches(&hist(&[("say pear", "The word pear.")]), &expected);
    assert!(e.is_err_and(|m| m.contains("heard \"The word\"")));
    // An empty history, or one from before the reset.
    assert!(history_matches(&[], &expected).is_err());
    assert!(history_matches(&hist(&[("say plum", "Plum.")]), &[]).is_err());
    assert!(history_matches(&[], &[]).is_ok());
    // A reply cut off while thinking may be absent, or present with nothing heard.
    let expected = [ex("say apple", "Apple.", false), ex("say fig", "", true)];
    assert!(history_matches(&hist(&[("say apple", "Apple.")]), &expected).is_ok());
    assert!(
        history_matches(
            &hist(&[("say apple", "Apple."), ("say fig", "")]),
            &expected
        )
        .is_ok()
    );
    assert!(history_matches(&hist(&[("say fig", "Fig is")]), &expected).is_err());
    // Not pairs.
    assert!(history_matches(&[Message::user("x")], &expected).is_err());
}

#[test]
fn flat_memory_and_threads_pass_and_growth_fails() {
    let mut r = SoakReport {
        turns: 40,
        steady_from: 20,
        rss_kb: vec![100_000; 40],
        threads: vec![12; 40],
        ..SoakReport::default()
    };
    assert!(r.failures().is_empty(), "{:?}", r.failures());
    // A figure taken mid-synthesis, at either end, is not growth.
    r.rss_kb[19] = 140_000;
    r.rss_kb[39] = 140_000;
    assert!(r.failures().is_empty(), "{:?}", r.failures());
    // Growth raises every figure of the last turns.
    for kb in &mut r.rss_kb[30..] {
        *kb = 106_000;
    }
    r.threads[30] = 13;
    let f = r.failures();
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f[0].contains("+6.0%"), "{f:?}");
    assert!(r.table().contains("| stuck turns | 0 |"));
}
