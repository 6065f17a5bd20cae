//! Smart endpointing scenarios: a complete turn ends at the short decision silence, a
//! mid-sentence pause the classifier calls incomplete (early and at the decision) keeps the
//! loop listening (one turn, not two), the fallback silence ends a turn the classifier never calls complete, and an answer
//! about a pause the user already spoke through is ignored.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::harness::{Harness, Setup, has, voice};
use crate::config::{EndpointMode, SmartEndpoint};
use crate::engines::{EngineResult, TurnClassifier};

/// Answers P(complete) from a script, logging the audio length of each ask.
struct ScriptedTurn {
    answers: VecDeque<f32>,
    asked: Arc<Mutex<Vec<usize>>>,
}

impl TurnClassifier for ScriptedTurn {
    fn complete_probability(&mut self, audio: &[f32]) -> EngineResult<f32> {
        self.asked.lock().expect("log").push(audio.len());
        Ok(self.answers.pop_front().unwrap_or(1.0))
    }
}

/// Smart endpointing over a classifier giving `answers`, asked (speech 100..800 ms); the
/// audio lengths it was asked about.
fn smart(answers: &[f32]) -> (Harness, Arc<Mutex<Vec<usize>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let mut setup = Setup {
        finals: vec!["what is the capital of france"],
        replies: vec![vec!["Paris."]],
        turn: Some(Box::new(ScriptedTurn {
            answers: answers.iter().copied().collect(),
            asked: asked.clone(),
        })),
        ..Setup::default()
    };
    setup.config.endpoint.mode = EndpointMode::Smart;
    setup.config.endpoint.smart = SmartEndpoint {
        ask_after: Duration::from_millis(50),
        decide_after: Duration::from_millis(200),
        threshold: 0.5,
        fallback: Duration::from_millis(1000),
    };
    (Harness::asked(setup), asked)
}

#[test]
fn a_complete_turn_ends_at_the_decision_silence() {
    let (mut h, asked) = smart(&[0.9]);
    h.until(5000, has("audio finished"));
    // Speech 100..800 ms: asked at 850 ms, ended at 1000 ms (the fixed rule here: 1100 ms).
    assert_eq!(h.time_of("speech stopped"), Some(1000));
    assert_eq!(h.count("still listening"), 0);
    // The pre-roll (the 100 ms of quiet before), the speech and the first 50 ms of the pause.
    assert_eq!(*asked.lock().expect("log"), vec![(100 + 700 + 50) * 16]);
    let m = h.last_metrics();
    assert_eq!(m.turn_complete_p, Some(f64::from(0.9f32)));
    assert_eq!(m.turn_classifier_ms, Some(0.0));
    h.finish();
}

#[test]
fn a_pause_judged_incomplete_keeps_listening_until_the_turn_is_done() {
    let (mut h, asked) = smart(&[0.1, 0.1, 0.8]);
    h.silence(600);
    h.speak(&voice(500, 2));
    h.until(6000, has("audio finished"));
    // One turn: the 600 ms pause did not end it; the second pause did, 200 ms in.
    assert_eq!(h.count("speech stopped"), 1);
    assert_eq!(h.count("final"), 1);
    // The answer to the ask at 200 ms of silence (1000 ms) is taken at the next frame.
    assert_eq!(h.count("still listening 0.10"), 1);
    assert_eq!(h.time_of("still listening"), Some(1010));
    assert_eq!(h.time_of("speech stopped"), Some(2100));
    // Two asks at the first pause (early and at the decision), one at the second.
    assert_eq!(asked.lock().expect("log").len(), 3);
    assert_eq!(h.last_metrics().turn_complete_p, Some(f64::from(0.8f32)));
    h.finish();
}

#[test]
fn the_fallback_silence_ends_a_turn_never_judged_complete() {
    let (mut h, _) = smart(&[0.2, 0.3]);
    h.until(5000, has("audio finished"));
    assert_eq!(h.time_of("still listening"), Some(1010));
    assert_eq!(h.time_of("speech stopped"), Some(1800));
    assert_eq!(h.last_metrics().turn_complete_p, Some(f64::from(0.3f32)));
    h.finish();
}

#[test]
fn an_answer_about_a_pause_spoken_through_is_ignored() {
    // The first pause (100 ms) is asked about and judged complete, but the user goes on
    // before the decision: the turn must not end there.
    let (mut h, asked) = smart(&[0.9, 0.9]);
    h.silence(100);
    h.speak(&voice(500, 2));
    h.until(5000, has("audio finished"));
    assert_eq!(h.count("speech stopped"), 1);
    assert_eq!(h.time_of("speech stopped"), Some(1600));
    assert_eq!(asked.lock().expect("log").len(), 2);
    h.finish();
}

#[test]
fn without_a_classifier_smart_mode_is_the_fixed_rule() {
    let mut setup = Setup {
        finals: vec!["what time is it"],
        replies: vec![vec!["Noon."]],
        ..Setup::default()
    };
    setup.config.endpoint.mode = EndpointMode::Smart;
    let mut h = Harness::asked(setup);
    h.until(5000, has("audio finished"));
    assert_eq!(h.time_of("speech stopped"), Some(1100));
    h.finish();
}
