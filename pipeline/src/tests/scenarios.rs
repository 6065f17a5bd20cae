//! The scenarios: a normal turn, barge-in while thinking and while speaking, a rapid double
//! barge-in, a cough that must not interrupt, and echo that must not interrupt (while a real
//! voice over the echo still does). Each asserts the exact event sequence.

use std::time::Duration;

use super::harness::{EchoPath, Harness, Setup, assert_events, has, short, voice};
use super::mocks::LaggingDetector;
use crate::Event;
use crate::engines::energy::EnergyDetector;

/// Output samples (16 kHz) between two times in ms.
fn output_between(h: &Harness, from_ms: u64, to_ms: u64) -> &[f32] {
    let end = ((to_ms as usize) * 16).min(h.output.len());
    &h.output[((from_ms as usize) * 16).min(end)..end]
}

/// Whether the output played something between two times in ms.
fn sounds_between(h: &Harness, from_ms: u64, to_ms: u64) -> bool {
    output_between(h, from_ms, to_ms).iter().any(|&x| x != 0.0)
}

/// Whether the output was silent between two times in ms.
fn silent_between(h: &Harness, from_ms: u64, to_ms: u64) -> bool {
    output_between(h, from_ms, to_ms).iter().all(|&x| x == 0.0)
}

/// Time (ms) of the second onset: the user speaking again (over a reply).
fn second_onset(h: &Harness) -> Option<u64> {
    h.log
        .iter()
        .filter(|(_, e)| matches!(e, Event::SpeechStarted))
        .nth(1)
        .map(|(t, _)| *t)
}

pub(super) const STORY: [&str; 4] = [
    "Once upon a time,",
    " there was a king",
    " who had three daughters.",
    " The first one was very tall.",
];

/// The chat's log line of [`STORY`] told whole.
pub(super) fn story_told() -> String {
    format!(
        "reply to \"tell me a story\": {:?} (Complete)",
        STORY.concat()
    )
}

/// The events of "what time is it" said over 100..800 ms: heard as turn 1, the loop thinking
/// (one partial while it is said, none in the silence after).
pub(super) const TIME_ASKED: [&str; 6] = [
    "state Listening",
    "speech started",
    "partial \"what...\"",
    "speech stopped",
    "final \"what time is it\" -> 1",
    "state Thinking",
];

/// The events of "tell me a story" said over 100..800 ms: heard as turn 1, the loop thinking
/// (one partial while it is said, none in the silence after).
const STORY_ASKED: [&str; 6] = [
    "state Listening",
    "speech started",
    "partial \"tell...\"",
    "speech stopped",
    "final \"tell me a story\" -> 1",
    "state Thinking",
];

/// After [`STORY_ASKED`]: the first three phrases of [`STORY`] written, the first two playing.
const STORY_PLAYING: [&str; 6] = [
    "text 1 \"Once upon a time,\"",
    "text 1 \" there was a king\"",
    "audio started 1",
    "latency 1 complete=true",
    "state Speaking",
    "text 1 \" who had three daughters.\"",
];

/// The reply of turn 3 (the second question's), its text written: it plays to its end.
const SECOND_REPLY_PLAYS: [&str; 5] = [
    "audio started 3",
    "latency 3 complete=true",
    "state Speaking",
    "audio finished 3",
    "state Listening",
];

#[test]
fn normal_turn() {
    let mut h = Harness::asked(Setup {
        finals: vec!["what time is it"],
        replies: vec![vec!["It is", " noon", ". Have", " a nice", " day."]],
        ..Setup::default()
    });
    h.until(5000, has("audio finished"));
    let h = h.finish();
    assert_events(
        &h,
        &[
            &TIME_ASKED,
            &[
                "text 1 \"It is\"",
                "text 1 \" noon\"",
                "text 1 \". Have\"",
                "audio started 1",
                "latency 1 complete=true",
                "state Speaking",
                "text 1 \" a nice\"",
                "text 1 \" day.\"",
                "audio finished 1",
                "state Listening",
            ],
        ],
    );
    // Speech 100..800 ms, endpoint after 300 ms of silence; the first segment ("It is noon.")
    // is spoken while the model still generates the rest.
    assert_eq!(h.time_of("speech stopped"), Some(1100));
    assert!(h.time_of("audio started") < h.time_of("text 1 \" day.\""));
    let report = h.handle.report();
    let turn = &report.turns[0];
    let m = &turn.metrics;
    assert!(m.is_complete(), "{m:?}");
    assert_eq!(m.speech_end, Some(800.0));
    assert_eq!(m.eou, Some(1100.0));
    assert_eq!(m.first_audio_latency(), Some(360.0));
    assert_eq!(m.response_latency(), Some(60.0));
    assert_eq!(turn.reply_text, "It is noon. Have a nice day.");
    assert_eq!(turn.heard, None);
    assert_eq!(
        h.chat_calls(),
        vec!["reply to \"what time is it\": \"It is noon. Have a nice day.\" (Complete)"]
    );
    // The whole utterance plus the 200 ms pre-roll reached the recognizer.
    assert!(
        h.asr_samples()[0] >= (700 + 200) * 16,
        "{:?}",
        h.asr_samples()
    );
    assert_eq!(report.underruns, Some(0));
}

/// A turn over a detector that trails the end of speech by 150 ms, with the voice followed by
/// `after` (silence, or a steady background at some level).
fn endpoint_with_lagging_detector(after: Vec<f32>) -> Option<u64> {
    let mut h = Harness::asked(Setup {
        finals: vec!["what time is it"],
        replies: vec![vec!["It is noon."]],
        detector: Box::new(LaggingDetector {
            inner: EnergyDetector::new(-40.0),
            lag: 15,
            hold: 0,
        }),
        ..Setup::default()
    });
    h.speak(&after);
    h.until(5000, has("audio finished"));
    h.finish().time_of("speech stopped")
}

#[test]
fn the_end_of_speech_wait_starts_when_the_voice_stops_not_when_the_detector_lets_go() {
    // Silence after the voice: the 300 ms wait counts from 800 ms although the detector calls
    // frames voiced until 950 ms.
    assert_eq!(
        endpoint_with_lagging_detector(vec![0.0; 16 * 600]),
        Some(1100)
    );
    // A steady hum ~25 dB under the voice's loudest frame (and under the energy detector's
    // threshold): no frame is quiet enough to overrule the detector, so the wait counts from
    // where the detector let go (950 ms).
    let hum = (0..16 * 600)
        .map(|i| 0.0095 * (i as f32 * 0.1).sin())
        .collect();
    assert_eq!(endpoint_with_lagging_detector(hum), Some(1250));
}

#[test]
fn without_speculation_an_early_final_prefills_the_model_before_the_endpoint() {
    let mut setup = Setup {
        finals: vec!["what time is it"],
        replies: vec![vec!["It is", " noon."]],
        // Speech 100..800 ms with a 200 ms pre-roll: 900 ms of utterance audio is 200 ms into
        // the end-of-speech wait, before the endpoint (300 ms).
        early_final_after_ms: Some(900),
        ..Setup::default()
    };
    setup.config.speculative_reply = false;
    let mut h = Harness::asked(setup);
    h.until(5000, has("audio finished"));
    let h = h.finish();
    // The hint is no event: the sequence is a normal turn's.
    h.assert_has_exactly("final \"what time is it\" -> 1");
    assert_eq!(h.time_of("speech stopped"), Some(1100));
    assert_eq!(
        h.chat_calls(),
        vec![
            "prefill \"what time is it\"".to_string(),
            "reply to \"what time is it\": \"It is noon.\" (Complete)".to_string(),
        ]
    );
}

#[test]
fn partials_run_through_the_model_while_the_user_speaks() {
    let mut setup = Setup {
        finals: vec!["what time is it"],
        replies: vec![vec!["It is", " noon."]],
        ..Setup::default()
    };
    setup.config.prefill_partials = true;
    let mut h = Harness::new(setup);
    h.silence(100);
    h.speak(&voice(1300, 1));
    h.until(5000, has("audio finished"));
    let h = h.finish();
    let events = h.short();
    let partials: Vec<&String> = events.iter().filter(|e| e.starts_with("partial")).collect();
    assert!(!partials.is_empty(), "{events:?}");
    let calls = h.chat_calls();
    // Each partial's words were run ahead, then the reply to the final.
    let prefills = calls.iter().filter(|c| c.starts_with("prefill")).count();
    assert_eq!(prefills, partials.len(), "{calls:?} / {partials:?}");
    assert!(calls[0].starts_with("prefill"), "{calls:?}");
    assert_eq!(
        calls.last().map(String::as_str),
        Some("reply to \"what time is it\": \"It is noon.\" (Complete)")
    );
}

/// A partial falls due 20 ms into a pause (speech 100..480 ms, then 250 ms of quiet): it waits
/// for the speech to resume, so neither the pause's early final nor the end-of-turn judge waits
/// for a decode of words the early final already holds.
#[test]
fn no_partial_is_decoded_while_the_user_pauses() {
    let mut h = Harness::new(Setup {
        finals: vec!["what is the capital of France"],
        replies: vec![vec!["Paris."]],
        ..Setup::default()
    });
    h.silence(100);
    h.speak(&voice(380, 1));
    h.silence(250);
    h.speak(&voice(400, 2));
    h.until(3000, has("final"));
    let partials: Vec<u64> = h
        .log
        .iter()
        .filter(|(_, e)| short(e).starts_with("partial"))
        .map(|(t, _)| *t)
        .collect();
    assert!(!partials.is_empty(), "{:#?}", h.short());
    assert!(
        partials.iter().all(|t| !(480..730).contains(t)),
        "partials at {partials:?} ms"
    );
}

#[test]
fn barge_in_while_thinking() {
    let mut h = Harness::asked(Setup {
        finals: vec!["tell me a story", "no wait, what time is it"],
        replies: vec![vec!["Once", " upon", " a time."], vec!["Noon."]],
        piece_delay: Duration::from_millis(300),
        ..Setup::default()
    });
    h.until(2000, has("state Thinking"));
    h.speak(&voice(600, 2));
    h.until(5000, has("audio finished"));
    let h = h.finish();
    assert_events(
        &h,
        &[
            &STORY_ASKED,
            &[
                "speech started",
                "paused 1",
                "text 1 \"Once\"",
                "partial \"no...\"",
                "text 1 \" upon\"",
                "text 1 \" a time.\"",
                "speech stopped",
                "state Listening",
                "final \"no wait, what time is it\" -> 3",
                "state Thinking",
                "interrupted 1 Thinking UserSpeech heard \"\"",
                "text 3 \"Noon.\"",
            ],
            &SECOND_REPLY_PLAYS,
        ],
    );
    // The reply was paused at the onset (the model finished it meanwhile) and cut off when the
    // final words were not a backchannel; nothing of it was heard, so the history keeps
    // nothing.
    assert_eq!(
        h.chat_calls(),
        vec![
            "reply to \"tell me a story\": \"Once upon a time.\" (Complete)",
            "truncate to \"\"",
            "reply to \"no wait, what time is it\": \"Noon.\" (Complete)",
        ]
    );
    // The new utterance was heard from its start: all 600 ms of it.
    assert!(h.asr_samples()[1] >= 600 * 16, "{:?}", h.asr_samples());
}

/// The user goes on after a pause the endpointer took for the end, and the recognizer is
/// slower than they are: the first words' final comes while the next words are spoken. Their
/// reply waits as it would had they spoken over it, and is never heard over them; the words
/// being spoken decide.
#[test]
fn a_final_that_comes_while_the_user_speaks_again_waits_for_the_new_words() {
    let mut h = Harness::asked(Setup {
        finals: vec!["what is the capital", "of France"],
        replies: vec![vec!["The capital", " of what?"], vec!["Paris."]],
        piece_delay: Duration::from_millis(50),
        final_delay: Some(Duration::from_millis(500)),
        ..Setup::default()
    });
    h.until(1000, has("speech stopped"));
    h.silence(50);
    h.speak(&voice(900, 2));
    h.until(5000, has("audio finished"));
    let h = h.finish();
    assert_events(
        &h,
        &[
            &[
                "state Listening",
                "speech started",
                "partial \"what...\"",
                "speech stopped",
                "speech started",
                "final \"what is the capital\" -> 1",
                "state Thinking",
                "paused 1",
                "partial \"of...\"",
                "text 1 \"The capital\"",
                "text 1 \" of what?\"",
                "speech stopped",
                "state Listening",
                "final \"of France\" -> 3",
                "state Thinking",
                "interrupted 1 Thinking UserSpeech heard \"\"",
                "text 3 \"Paris.\"",
            ],
            &SECOND_REPLY_PLAYS,
        ],
    );
}

#[test]
fn barge_in_while_speaking() {
    let h = over_the_story("stop", 500, 5000, has("audio finished"));
    let heard = "Once upon a time, there was a king who had three";
    assert_events(
        &h,
        &[
            &STORY_ASKED,
            &STORY_PLAYING,
            &[
                "text 1 \" The first one was very tall.\"",
                "speech started",
                "paused 1",
                "partial \"stop...\"",
                "speech stopped",
                "state Listening",
                "final \"stop\" -> 3",
                "state Thinking",
                &format!("interrupted 1 Speaking UserSpeech heard {heard:?}"),
                "text 3 \"Okay.\"",
            ],
            &SECOND_REPLY_PLAYS,
        ],
    );
    // Output is silent from the first callback after the onset was detected (one 10 ms tick:
    // the stop time) until the next reply starts.
    let onset = h.time_of("speech started 1").unwrap_or(0);
    let onset = second_onset(&h).unwrap_or(onset);
    let next = h.time_of("audio started 3").expect("second reply");
    assert!(sounds_between(&h, onset - 20, onset));
    // (The tick at `next` reports the first fill of the next reply, one tick earlier.)
    assert!(silent_between(&h, onset, next - 20));
    assert_eq!(
        h.handle.report().barge_in_stop_ms.map(|p| p.p50),
        Some(10.0)
    );
    assert_eq!(
        h.chat_calls(),
        vec![
            "reply to \"tell me a story\": \"Once upon a time, there was a king who had three daughters. The first one was very tall.\" (Complete)".to_string(),
            format!("truncate to {heard:?}"),
            "reply to \"stop\": \"Okay.\" (Complete)".to_string(),
        ]
    );
    let report = h.handle.report();
    assert_eq!(report.turns[0].heard.as_deref(), Some(heard));
    assert!(h.asr_samples()[1] >= 500 * 16);
}

/// A reply with "mm-hmm" (or a cough the recognizer hears as nothing) said over it: paused at
/// the onset, silent while the user speaks, then going on from where it paused to its end; no
/// cut, no new turn, the history untouched.
fn backchannel_over_reply(said: &'static str) -> Harness {
    over_the_story(said, 500, 6000, has("audio finished"))
}

/// "tell me a story" answered with [`STORY`]; 300 ms into its audio the user speaks for
/// `speech_ms`, heard as `said` (answered "Okay." if it becomes a turn); runs until `done` (at
/// most `max_ms`).
fn over_the_story(
    said: &'static str,
    speech_ms: u64,
    max_ms: u64,
    done: impl Fn(&[(u64, Event)]) -> bool,
) -> Harness {
    let mut h = Harness::asked(Setup {
        finals: vec!["tell me a story", said],
        replies: vec![STORY.to_vec(), vec!["Okay."]],
        ..Setup::default()
    });
    h.until(3000, has("audio started"));
    h.silence(300);
    h.speak(&voice(speech_ms, 2));
    h.until(max_ms, done);
    h.finish()
}

#[test]
fn a_backchannel_over_the_reply_does_not_interrupt_it() {
    for said in ["mm-hmm", ""] {
        let h = backchannel_over_reply(said);
        let log = h.short();
        assert!(h.time_of("interrupted").is_none(), "{said:?}: {log:#?}");
        let paused = h.time_of("paused 1").expect("paused at the onset");
        let resumed = h
            .time_of(&format!("resumed 1 after {said:?}"))
            .expect("resumed");
        assert!(h.time_of("audio finished 1").is_some_and(|t| t > resumed));
        assert!(
            !log.iter()
                .any(|e| e.starts_with("final") && e.contains("-> 3")),
            "{log:#?}"
        );
        // Playing before the onset, silent from the first tick after it until the resume,
        // playing again after.
        assert!(sounds_between(&h, paused - 20, paused));
        assert!(silent_between(&h, paused + 10, resumed));
        assert!(sounds_between(&h, resumed, resumed + 60));
        // The whole reply was said and kept; the backchannel never reached the model.
        assert_eq!(h.chat_calls(), vec![story_told()]);
        let report = h.handle.report();
        assert_eq!(report.turns.len(), 1);
        assert_eq!(report.turns[0].heard, None);
        // The question was decoded plainly, the speech over the reply expecting backchannels.
        assert_eq!(h.asr_over_reply(), vec![false, true]);
    }
}

#[test]
fn speech_over_a_paused_reply_that_goes_on_too_long_cuts_it_off() {
    // A long utterance of backchannel-looking partials: cut off at the hold limit (1.5 s).
    let h = over_the_story("yeah yeah", 2600, 8000, has("state Listening"));
    let paused = h.time_of("paused 1").expect("paused");
    let cut = h.time_of("interrupted 1").expect("cut off");
    assert!(
        (paused + 1500..=paused + 2200).contains(&cut),
        "paused at {paused} ms, cut at {cut} ms"
    );
}

#[test]
fn rapid_double_barge_in() {
    let mut h = Harness::asked(Setup {
        finals: vec!["tell me a story", "no, a poem", "actually, the time"],
        replies: vec![
            STORY[..3].to_vec(),
            vec!["Roses", " are red,", " violets are blue."],
            vec!["It is noon."],
        ],
        piece_delay: Duration::from_millis(50),
        ..Setup::default()
    });
    h.until(3000, has("audio started"));
    h.silence(200);
    h.speak(&voice(400, 2));
    h.until(3000, has("final \"no, a poem\""));
    h.speak(&voice(400, 3));
    h.until(5000, has("audio finished"));
    let h = h.finish();
    assert_events(
        &h,
        &[
            &STORY_ASKED,
            &STORY_PLAYING,
            &[
                "speech started",
                "paused 1",
                "partial \"no,...\"",
                "speech stopped",
                "state Listening",
                "final \"no, a poem\" -> 3",
                "state Thinking",
                "interrupted 1 Speaking UserSpeech heard \"Once upon a time, there was a king who had\"",
                "text 3 \"Roses\"",
                "text 3 \" are red,\"",
                "text 3 \" violets are blue.\"",
                "audio started 3",
                "latency 3 complete=true",
                "state Speaking",
                "speech started",
                "paused 3",
                "speech stopped",
                "state Listening",
                "final \"actually, the time\" -> 5",
                "state Thinking",
                "interrupted 3 Speaking UserSpeech heard \"\"",
                "text 5 \"It is noon.\"",
                "audio started 5",
                "latency 5 complete=true",
                "state Speaking",
                "audio finished 5",
                "state Listening",
            ],
        ],
    );
    assert_eq!(
        h.chat_calls(),
        vec![
            "reply to \"tell me a story\": \"Once upon a time, there was a king who had three daughters.\" (Complete)",
            "truncate to \"Once upon a time, there was a king who had\"",
            "reply to \"no, a poem\": \"Roses are red, violets are blue.\" (Complete)",
            "truncate to \"\"",
            "reply to \"actually, the time\": \"It is noon.\" (Complete)",
        ]
    );
}

#[test]
fn cough_does_not_interrupt() {
    let mut h = Harness::asked(Setup {
        finals: vec!["tell me a story"],
        replies: vec![STORY[..3].to_vec()],
        ..Setup::default()
    });
    h.until(3000, has("audio started"));
    h.silence(100);
    h.speak(&voice(120, 5)); // 120 ms burst < 200 ms minimum speech
    h.until(5000, has("audio finished"));
    let h = h.finish();
    assert_events(
        &h,
        &[
            &STORY_ASKED,
            &STORY_PLAYING,
            &["audio finished 1", "state Listening"],
        ],
    );
    assert_eq!(
        h.chat_calls().len(),
        1,
        "no truncation: {:?}",
        h.chat_calls()
    );
}

/// A long reply with the loudspeaker coupled back into the microphone (40 ms, -6 dB), and
/// optionally a real voice (jfk.wav) speaking over it 500 ms into the reply.
fn echo_run(echo_cancel: bool, user: Option<&[f32]>) -> Harness {
    let mut setup = Setup {
        finals: vec!["tell me a story", "and so my fellow americans"],
        replies: vec![
            vec![
                "Once upon a time,",
                " there was a king who had three daughters.",
                " The first one was tall,",
                " the second one was small,",
                " and the third one was wise.",
            ],
            vec!["Okay."],
        ],
        echo: Some(EchoPath {
            delay: Duration::from_millis(40),
            gain: 0.5,
        }),
        ..Setup::default()
    };
    setup.config.echo_cancel = echo_cancel;
    let mut h = Harness::asked(setup);
    h.until(3000, has("audio started"));
    if let Some(u) = user {
        h.silence(500);
        h.speak(u);
    }
    h.until(20_000, |log| {
        log.iter().any(|(_, e)| {
            let s = short(e);
            s.starts_with("audio finished") || s.starts_with("interrupted")
        })
    });
    h.finish()
}

fn jfk() -> Vec<f32> {
    let store = pocket_assets::Store::open_default().expect("asset store");
    let path = store
        .require_file(pocket_assets::ids::JFK, "jfk.wav")
        .expect("jfk.wav (run `pocket assets fetch --set test-audio`)");
    crate::audio::wav::read_mono(&path, 16_000).expect("jfk.wav reads")
}

#[test]
fn echo_does_not_interrupt() {
    // With echo cancellation the reply plays to the end: no self barge-in.
    let h = echo_run(true, None);
    let got = h.short();
    h.assert_has_exactly("audio finished 1");
    assert_eq!(
        got.iter().filter(|e| *e == "speech started").count(),
        1,
        "{got:#?}"
    );
    assert!(h.time_of("interrupted").is_none(), "{got:#?}");
    // The control: the same echo without cancellation interrupts the assistant itself.
    echo_run(false, None).assert_has("interrupted 1");
}

#[test]
fn real_voice_over_echo_still_barges_in() {
    let voice = jfk();
    let h = echo_run(true, Some(&voice[..16_000 * 3]));
    h.assert_has("interrupted 1 Speaking UserSpeech");
    // Detected within 300 ms of the minimum speech time after the voice's first loud frame:
    // the echo canceller kept the near-end voice.
    let reply_start = h.time_of("audio started 1").expect("reply played");
    let first_loud = voice
        .chunks(160)
        .position(|f| crate::engines::energy::level_dbfs(f) > -40.0)
        .expect("jfk has speech") as u64
        * 10;
    let voice_start = reply_start + 500 + first_loud + 200;
    let barge = second_onset(&h).expect("barge-in");
    assert!(
        barge.abs_diff(voice_start) <= 300,
        "barge-in at {barge} ms, voice plus minimum speech at {voice_start} ms"
    );
}

/// A reply whose next phrase comes later than the audio ahead of it runs out (a slow model)
/// leaves the output dry: the underruns are counted, and the report gives them to that turn,
/// not to the next one, which plays without a gap.
#[test]
fn underruns_go_to_the_turn_whose_reply_ran_dry() {
    let mut h = Harness::asked(Setup {
        finals: vec!["tell me a story", "what time is it"],
        replies: vec![STORY.to_vec(), vec!["It is noon."]],
        piece_delay: Duration::from_millis(300),
        ..Setup::default()
    });
    h.until(10_000, has("audio finished 1"));
    h.silence(300);
    h.speak(&voice(700, 2));
    h.until(10_000, has("audio finished 2"));
    let h = h.finish();
    let report = h.handle.report();
    let per_turn: Vec<Option<u64>> = report.turns.iter().map(|t| t.underruns).collect();
    assert_eq!(per_turn.len(), 2, "{per_turn:?}");
    let first = per_turn[0].expect("a paced output counts underruns");
    // Each 300 ms wait for a phrase outlasts the phrase before it ("Once upon a time," is
    // 170 ms of audio here).
    assert!(first >= 10, "{per_turn:?}");
    assert_eq!(per_turn[1], Some(0), "{per_turn:?}");
    assert_eq!(report.underruns, Some(first), "{per_turn:?}");
}
