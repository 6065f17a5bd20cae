//! The soak: 200 turns (`POCKET_SOAK_TURNS` for more) on the real default engines at fast
//! pace — spoken, typed and push-to-talk turns, seeded barge-ins while the assistant thinks
//! and while it speaks, resets — on one running pipeline. Every turn ends (a stuck one fails
//! with where the loop was), resident memory over the last 10 turns is within 5% of turns
//! 20-29's (the lowest figure of each: one taken while a synthesis run is live is not
//! growth), the thread count does not move from turn 20 on, and after every turn the model's history
//! holds exactly what the user heard. Its own test binary, so it does not share the cores.
//! `pocket soak --turns N` runs the same thing from the command line.

mod common;

use std::time::Duration;

use pocket_pipeline::soak::{self, FastRig, SoakOptions};

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

#[test]
fn soak_turns_end_memory_and_threads_stay_flat_history_is_what_was_heard() {
    let Some(store) = common::default_store() else {
        return;
    };
    let opts = SoakOptions {
        turns: env_number("POCKET_SOAK_TURNS", 200) as usize,
        seed: env_number("POCKET_SOAK_SEED", 1),
        turn_timeout: Duration::from_secs(60),
        ..SoakOptions::default()
    };
    let words = soak::clips::words();
    let clips = soak::clips::spoken_questions(&words).expect("questions are spoken");
    let texts: Vec<String> = words.iter().map(|w| soak::clips::question(w)).collect();
    let mut rig = FastRig::start(&store, 2).expect("default engines load");
    assert!(
        rig.warnings.is_empty(),
        "the default engines, not a fallback: {:?}",
        rig.warnings
    );
    let report = rig.soak(&clips, &texts, &opts, &mut |r| {
        if r.turns % 20 == 0 {
            println!(
                "turn {}: RSS {} KiB, {} threads, {:.0} s",
                r.turns,
                r.rss_kb.last().copied().unwrap_or(0),
                r.threads.last().copied().unwrap_or(0),
                r.wall_s
            );
        }
    });
    rig.stop();
    println!("{}", report.table());

    let failures = report.failures();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(report.turns, opts.turns);
    // The mix happened: cut-ins landed both while thinking and while speaking.
    let some = (opts.turns / 40).max(1);
    assert!(
        report.barge_ins_thinking >= some && report.barge_ins_speaking >= some,
        "barge-ins while thinking {} and speaking {}: want {some} of each",
        report.barge_ins_thinking,
        report.barge_ins_speaking
    );
    assert!(
        report.answered >= opts.turns / 2,
        "answered {}",
        report.answered
    );
}
