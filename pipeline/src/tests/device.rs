//! The real-device path (cpal → ALSA → PulseAudio null sink, whose monitor is the default
//! source, so the speaker loops back into the microphone): replies play through a device
//! callback, a barge-in silences it within 100 ms, the loop-back echo does not interrupt the
//! assistant, and a clip played into the sink is heard as a user turn.
//!
//! `scripts/test` starts PulseAudio with the null sink and sets `POCKET_AUDIO_TEST=null-sink`;
//! without it the test says so and passes (it would play noise on a developer's speakers),
//! except in CI (`CI=true`), where it fails.

use std::sync::atomic::Ordering;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::mocks::mock_engines;
use crate::audio::device::{DeviceAudio, default_output_rate};
use crate::config::PipelineConfig;
use crate::engines::Engines;
use crate::handle::{Pipeline, PipelineHandle};
use crate::types::{Event, Stamped};

pub(super) fn wait_for(
    events: &crossbeam_channel::Receiver<Stamped>,
    seen: &mut Vec<Event>,
    timeout: Duration,
    pred: impl Fn(&Event) -> bool,
) -> bool {
    let end = Instant::now() + timeout;
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match events.recv_timeout(left) {
            Ok(s) => {
                let hit = pred(&s.event);
                seen.push(s.event);
                if hit {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    false
}

/// Waits until what was seen satisfies `done` (or `timeout` passes); `done(seen)` at the end.
pub(super) fn wait_until(
    events: &crossbeam_channel::Receiver<Stamped>,
    seen: &mut Vec<Event>,
    timeout: Duration,
    done: impl Fn(&[Event]) -> bool,
) -> bool {
    let end = Instant::now() + timeout;
    while !done(seen) && Instant::now() < end {
        wait_for(events, seen, Duration::from_millis(50), |_| false);
    }
    done(seen)
}

/// The real-device tests share the sound server (one of them unplugs its sink): they run one at
/// a time, holding this. `None`: no null sink here, skip (in CI that fails instead).
pub(super) fn null_sink_test() -> Option<MutexGuard<'static, ()>> {
    static SERVER: Mutex<()> = Mutex::new(());
    if std::env::var("POCKET_AUDIO_TEST").as_deref() != Ok("null-sink") {
        // In CI the real device path must run; a missing null sink is a failure there.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but POCKET_AUDIO_TEST is not null-sink: the PulseAudio null sink did not come up"
        );
        println!("skipped: run through scripts/test (sets up a PulseAudio null sink)");
        return None;
    }
    Some(SERVER.lock().unwrap_or_else(|p| p.into_inner()))
}

/// The loop on the default devices (the null sink) with `engines`.
pub(super) fn start_on_devices(engines: Engines) -> (Pipeline, DeviceAudio) {
    let rate = default_output_rate().expect("the null sink is the default output");
    let config = PipelineConfig {
        output_rate: rate,
        first_audio_gate: None,
        ..PipelineConfig::default()
    };
    let (pipeline, ports) = Pipeline::start(engines, config).expect("pipeline");
    let device = DeviceAudio::start(ports).expect("devices open");
    (pipeline, device)
}

/// Says "tell me a story" and waits until its reply starts playing.
pub(super) fn a_story_starts(
    handle: &PipelineHandle,
    events: &crossbeam_channel::Receiver<Stamped>,
    seen: &mut Vec<Event>,
) {
    handle.say("tell me a story");
    let started = wait_for(events, seen, Duration::from_secs(10), |e| {
        matches!(e, Event::AudioStarted { .. })
    });
    assert!(started, "no audio started: {seen:?}");
}

/// A whole reply to `text` plays to its end, not interrupted (its loop-back echo does not make
/// the assistant interrupt itself); then `jfk.wav`, played into the sink with `paplay`,
/// reaches the microphone and becomes a user turn.
pub(super) fn assert_a_reply_and_a_clip_go_through(
    handle: &PipelineHandle,
    events: &crossbeam_channel::Receiver<Stamped>,
    seen: &mut Vec<Event>,
    text: &str,
) {
    seen.clear();
    handle.say(text);
    let finished = wait_for(events, seen, Duration::from_secs(10), |e| {
        matches!(e, Event::AudioFinished { .. })
    });
    assert!(
        finished
            && seen.iter().any(|e| matches!(e, Event::AudioStarted { .. }))
            && !seen.iter().any(|e| matches!(e, Event::Interrupted { .. })),
        "the reply to {text:?} did not play through (interrupted itself?): {seen:?}"
    );
    seen.clear();
    let store = pocket_assets::Store::open_default().expect("store");
    let clip = store
        .require_file(pocket_assets::ids::JFK, "jfk.wav")
        .expect("jfk.wav");
    match std::process::Command::new("paplay").arg(&clip).status() {
        Ok(s) if s.success() => {}
        other => panic!("paplay failed: {other:?}"),
    }
    let heard = wait_for(events, seen, Duration::from_secs(15), |e| {
        matches!(e, Event::FinalTranscript { turn: Some(_), .. })
    });
    assert!(heard, "the clip was not heard: {seen:?}");
}

#[test]
fn device_loop_on_the_default_devices() {
    let Some(_server) = null_sink_test() else {
        return;
    };
    let story = vec![
        "Once upon a time,",
        " there was a king who had three daughters,",
        " and a castle by the sea.",
    ];
    let engines = mock_engines(
        &["what time is it"],
        vec![story, vec!["Hello to you."], vec!["It is noon."]],
    );
    let (pipeline, device) = start_on_devices(engines);
    let handle = pipeline.handle();
    let events = handle.subscribe();
    let mut seen = Vec::new();

    // 1. A reply plays through the device; stopping it silences the output within 100 ms.
    a_story_starts(&handle, &events, &mut seen);
    std::thread::sleep(Duration::from_millis(400));
    handle.stop_speaking();
    let cut = wait_for(&events, &mut seen, Duration::from_secs(5), |e| {
        matches!(e, Event::Interrupted { .. })
    });
    assert!(cut, "not interrupted: {seen:?}");
    // Stop time: decision → the callback stops handing over reply audio, plus the delay the
    // backend reports between a callback and the speaker.
    let stop = handle
        .report()
        .barge_in_stop_ms
        .expect("stop time measured");
    let latency = device.stats().output_latency_us.load(Ordering::Relaxed) as f64 / 1000.0;
    println!(
        "device barge-in stop: {:.1} ms to the callback + {latency:.1} ms output latency",
        stop.p50
    );
    assert!(
        stop.p50 + latency <= 100.0,
        "stop took {} + {latency} ms",
        stop.p50
    );

    // 2. A whole reply plays; its loop-back echo does not make the assistant interrupt itself.
    // 3. A clip played into the sink reaches the microphone and becomes a user turn.
    assert_a_reply_and_a_clip_go_through(&handle, &events, &mut seen, "hello");
    let report = handle.report();
    assert!(
        !seen.iter().any(|e| matches!(e, Event::DeviceLost { .. })),
        "{seen:?}"
    );
    println!("underruns: {:?}", report.underruns);
    handle.shutdown();
    drop(device);
    pipeline.shutdown();
}
