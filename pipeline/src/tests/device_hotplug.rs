//! The real devices going away and coming back (cpal → ALSA → PulseAudio null sink): the sink
//! (and with it its monitor, the microphone) is unloaded mid-reply, then loaded again. The reply
//! ends as `output_lost` with both devices reported lost; both come back as `device_restored`
//! on the re-opened default devices; the next reply plays through the new output and a clip
//! played into the new sink is heard. Skipped (failed in CI) like the device test.

use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use super::device::{
    a_story_starts, assert_a_reply_and_a_clip_go_through, null_sink_test, start_on_devices,
    wait_until,
};
use super::mocks::mock_engines;
use super::pulse::NullSink;
use crate::types::{Event, InterruptCause};

const STORY: [&str; 5] = [
    "Once upon a time,",
    " there was a king who had three daughters,",
    " and a castle by the sea,",
    " where the wind sang every night",
    " and the gulls woke everyone at dawn.",
];

fn lost(e: &Event, which: &str) -> bool {
    matches!(e, Event::DeviceLost { device, .. } if device == which)
}

fn restored(e: &Event, which: &str) -> bool {
    matches!(e, Event::DeviceRestored { device, .. } if device == which)
}

#[test]
fn devices_unplugged_mid_reply_are_reopened_and_the_next_turns_work() {
    let Some(_server) = null_sink_test() else {
        return;
    };
    let engines = mock_engines(
        &["what time is it"],
        vec![STORY.to_vec(), vec!["It is noon."], vec!["Hello to you."]],
    );
    let (pipeline, device) = start_on_devices(engines);
    let handle = pipeline.handle();
    let events = handle.subscribe();
    let sink = NullSink::take();
    let mut seen = Vec::new();

    // 1. Mid-reply, the sink and its monitor go away.
    a_story_starts(&handle, &events, &mut seen);
    std::thread::sleep(Duration::from_millis(200));
    let unplugged = Instant::now();
    sink.unplug();
    let both_lost = |seen: &[Event]| {
        seen.iter().any(|e| lost(e, "speaker"))
            && seen.iter().any(|e| lost(e, "microphone"))
            && seen.iter().any(|e| {
                matches!(
                    e,
                    Event::Interrupted {
                        cause: InterruptCause::OutputLost,
                        ..
                    }
                )
            })
    };
    let ended = wait_until(&events, &mut seen, Duration::from_secs(5), both_lost);
    assert!(ended, "not ended as lost: {seen:?}");
    println!(
        "lost reported {} ms after the unload",
        unplugged.elapsed().as_millis()
    );

    // 2. With no sink at all the re-opens fail; then the sink is back as the default.
    std::thread::sleep(Duration::from_millis(1200));
    assert!(
        !seen
            .iter()
            .any(|e| matches!(e, Event::DeviceRestored { .. })),
        "restored with no sink: {seen:?}"
    );
    let plugged = Instant::now();
    sink.plug();
    let both_back = |seen: &[Event]| {
        seen.iter().any(|e| restored(e, "speaker"))
            && seen.iter().any(|e| restored(e, "microphone"))
    };
    let back = wait_until(&events, &mut seen, Duration::from_secs(5), both_back);
    assert!(back, "not restored: {seen:?}");
    println!(
        "restored {} ms after the load",
        plugged.elapsed().as_millis()
    );
    // The output-down state clears once the new stream consumes (the playback monitor).
    while handle.output_down() && plugged.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !handle.output_down(),
        "the re-opened output does not consume"
    );

    // 3. The next reply plays through the re-opened output, to its end.
    // 4. The re-opened microphone hears a clip played into the new sink.
    assert_a_reply_and_a_clip_go_through(&handle, &events, &mut seen, "what time is it");
    let stats = device.stats();
    // At least once each (a machine busy enough to stall the output may add a re-open).
    assert!(stats.output_reopens.load(Relaxed) >= 1);
    assert!(stats.input_reopens.load(Relaxed) >= 1);
    handle.shutdown();
    drop(device);
    pipeline.shutdown();
}
