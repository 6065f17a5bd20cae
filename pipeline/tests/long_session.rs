//! A 200-turn spoken conversation on the real default engines (Whisper, the default chat
//! model with its voice policy and history, Piper) at fast pace: every turn asks for a
//! different word ("Say the word apple."), so a reply that says it provably answers its own
//! turn, not an earlier one. The context overflows and the window slides more than once; the
//! cost of a turn stays flat (response latency P90 over turns 150-200 within 1.3x of turns
//! 1-50, plus a small allowance for timer noise on a shared CI machine). Its own test binary,
//! so no other test shares the cores while it measures.

mod common;

use std::time::Duration;

use pocket_pipeline::audio::file::{Pace, TurnOutcome, converse};
use pocket_pipeline::metrics::Percentiles;
use pocket_pipeline::soak::{self, FastRig};

fn heard_word(user_text: &str) -> Option<String> {
    user_text
        .split(|c: char| !c.is_ascii_alphabetic())
        .rfind(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
}

#[test]
fn two_hundred_turns_each_answer_their_own_question_at_flat_cost() {
    let Some(store) = common::default_store() else {
        return;
    };
    let words = soak::clips::words();
    assert_eq!(words.len(), 200);
    // The questions, spoken by the built-in voice (not the assistant's Piper voice).
    let clips = soak::clips::spoken_questions(&words).expect("questions are spoken");
    let FastRig {
        pipeline,
        handle,
        mut mic,
        sink,
        ..
    } = FastRig::start(&store, 2).expect("default engines load");
    let outcomes = converse(
        &mut mic,
        &handle,
        &clips,
        Pace::Fast,
        Duration::from_secs(120),
    )
    .expect("turns");
    drop(sink.finish());
    let report = handle.report();
    drop(mic);
    pipeline.shutdown();

    let answered = outcomes
        .iter()
        .filter(|o| **o == TurnOutcome::Answered)
        .count();
    assert_eq!(answered, 200, "every turn is answered: {outcomes:?}");
    assert_eq!(report.turns.len(), 200);
    // The recognizer heard the asked word, and the reply says the word it heard.
    let mut heard_right = 0;
    let mut said_it = 0;
    for (t, w) in report.turns.iter().zip(&words) {
        let heard = heard_word(&t.user_text).unwrap_or_default();
        heard_right += usize::from(heard == *w);
        let says = t.reply_text.to_ascii_lowercase().contains(&heard) && !heard.is_empty();
        said_it += usize::from(says);
        if !says {
            println!(
                "turn {}: heard {:?}, replied {:?}",
                t.turn, t.user_text, t.reply_text
            );
        }
    }
    println!("heard the asked word in {heard_right}/200, said the heard word in {said_it}/200");
    // Measured: heard 141/200 (the built-in voice is hard to hear), said the heard word in
    // 173/200. A reply to an earlier turn (the bug this guards) says its own word in ~0.
    assert!(heard_right >= 125, "heard {heard_right}/200");
    assert!(
        said_it >= 155,
        "said the word it heard in {said_it}/200 turns"
    );

    let p90 = |range: std::ops::Range<usize>| {
        let v: Vec<f64> = report.turns[range]
            .iter()
            .filter_map(|t| t.response_latency_ms)
            .collect();
        Percentiles::of(&v).expect("latencies").p90
    };
    let (early, late) = (p90(0..50), p90(150..200));
    println!("response latency P90: turns 1-50 {early:.0} ms, turns 150-200 {late:.0} ms");
    assert!(
        late <= early * 1.3 + 30.0,
        "turns 150-200 P90 {late:.0} ms vs turns 1-50 {early:.0} ms"
    );
}
