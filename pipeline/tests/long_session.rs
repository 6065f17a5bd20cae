//! A 200-turn spoken conversation on the real default engines (Whisper, the default chat
//! model with its voice policy and history, Piper) at fast pace: every turn asks for a
//! different word ("Say the word apple."), so a reply that says it provably answers its own
//! turn, not an earlier one. The context overflows and the window slides more than once; the
//! cost of a turn stays flat (over turns 150-200 vs turns 1-50: the median response latency,
//! and the P90 from final transcript to first token, within 1.3x plus a small allowance for
//! timer noise on a shared CI machine). Its own test binary, so no other test shares the
//! cores while it measures.

mod common;

use std::time::Duration;

use pocket_pipeline::audio::file::{Pace, TurnOutcome, converse};
use pocket_pipeline::metrics::{Percentiles, TurnRecord};
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

    // A turn's cost, early vs late. Its median: a history that grows, or a slide that
    // re-reads the whole window, moves most late turns, so the median moves with it. Not its
    // P90: over 50 turns that is the fifth-slowest, set by the recognizer's spread (100-415 ms
    // for the same kind of clip: at fast pace the final is decoded after the endpoint, not
    // during the wait as in real time), and it differed by up to 1.46x between the windows of
    // one run.
    // The stage the history feeds (final transcript to first token) is steady enough for its
    // P90 to be held too.
    let stat =
        |range: std::ops::Range<usize>, of: &dyn Fn(&TurnRecord) -> Option<f64>| -> Percentiles {
            let v: Vec<f64> = report.turns[range].iter().filter_map(of).collect();
            Percentiles::of(&v).expect("latencies")
        };
    let response = |t: &TurnRecord| t.response_latency_ms;
    let prefill = |t: &TurnRecord| Some(t.metrics.llm_first_token? - t.metrics.asr_final?);
    let (early, late) = (stat(0..50, &response), stat(150..200, &response));
    let (early_llm, late_llm) = (stat(0..50, &prefill), stat(150..200, &prefill));
    println!(
        "response latency P50 / P90: turns 1-50 {:.0} / {:.0} ms, turns 150-200 {:.0} / {:.0} ms",
        early.p50, early.p90, late.p50, late.p90
    );
    println!(
        "final transcript to first token P90: turns 1-50 {:.0} ms, turns 150-200 {:.0} ms",
        early_llm.p90, late_llm.p90
    );
    assert!(
        late.p50 <= early.p50 * 1.3 + 30.0,
        "turns 150-200 P50 {:.0} ms vs turns 1-50 {:.0} ms",
        late.p50,
        early.p50
    );
    assert!(
        late_llm.p90 <= early_llm.p90 * 1.3 + 30.0,
        "first token after the transcript, turns 150-200 P90 {:.0} ms vs turns 1-50 {:.0} ms",
        late_llm.p90,
        early_llm.p90
    );
}
