//! The Piper joe voice end to end: streaming, cancellation, bad input, custom voice errors.

mod common;

use common::{joe, rms};
use pocket_tts::{PiperVoice, TtsError, Voice, speak_to_vec};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[test]
fn speaks_a_reply_first_clause_first() {
    let mut v = joe();
    assert_eq!(v.sample_rate(), 22050);
    assert_eq!(v.name(), "piper:en_US-joe-medium");
    let cancel = AtomicBool::new(false);
    let mut chunks: Vec<usize> = Vec::new();
    let mut all = Vec::new();
    let stats = v
        .synthesize(
            "Sure, I can help with that. The train leaves at 9:15 am, so be there early.",
            &cancel,
            &mut |c| {
                chunks.push(c.len());
                all.extend_from_slice(c);
                ControlFlow::Continue(())
            },
        )
        .expect("synthesize");
    // "Sure," comes first on its own, then each sentence.
    assert_eq!(chunks.len(), 3, "{chunks:?}");
    assert_eq!(stats.chunks, 3);
    assert!(chunks[0] < chunks[1] && chunks[0] < chunks[2], "{chunks:?}");
    assert_eq!(stats.samples, all.len());
    let secs = all.len() as f64 / 22050.0;
    assert!((3.0..9.0).contains(&secs), "{secs} s of audio");
    assert!(rms(&all) > 0.05, "audible");
    assert!(all.iter().all(|s| s.is_finite() && s.abs() <= 1.0));
    let first = stats.first_chunk.expect("first chunk");
    assert!(first < stats.elapsed);
    assert!(stats.rtf() > 0.0 && !stats.cancelled);
}

#[test]
fn cancel_flag_and_break_stop_between_chunks() {
    let mut v = joe();
    let cancel = AtomicBool::new(false);
    let text = "One sentence here. Another sentence there. A third one. And a fourth.";
    let mut n = 0;
    let stats = v
        .synthesize(text, &cancel, &mut |_| {
            n += 1;
            cancel.store(true, Ordering::Relaxed);
            ControlFlow::Continue(())
        })
        .expect("synthesize");
    assert_eq!(n, 1);
    assert!(stats.cancelled);
    let never = AtomicBool::new(false);
    let mut n = 0;
    let stats = v
        .synthesize(text, &never, &mut |_| {
            n += 1;
            ControlFlow::Break(())
        })
        .expect("synthesize");
    assert_eq!((n, stats.cancelled), (1, true));
    // Already cancelled: nothing at all.
    let stats = v
        .synthesize(text, &cancel, &mut |_| panic!("no chunk after cancel"))
        .expect("synthesize");
    assert!(stats.cancelled && stats.samples == 0);
}

#[test]
fn bad_input_never_panics_and_first_audio_stays_fast() {
    let mut v = joe();
    for text in [
        "",
        "   ",
        "*** ### @@@ %%% ~~~ |||",
        "你好，世界。",
        "Привет, мир!",
        "🎉🎉🎉",
    ] {
        let (pcm, stats) = speak_to_vec(&mut *v, text).expect("no error");
        assert!(
            pcm.is_empty() && stats.first_chunk.is_none(),
            "{text:?} spoke"
        );
    }
    // Mixed scripts: the Latin part is spoken.
    let (pcm, _) = speak_to_vec(&mut *v, "Hello 世界, friend.").expect("mixed");
    assert!(!pcm.is_empty());

    // 10,000 characters without punctuation: chunked, so the first chunk comes as fast as a
    // short sentence's would; then cancel.
    let long = "the cat sat on a very long mat ".repeat(323);
    assert!(long.len() >= 10_000);
    let (_, short) = speak_to_vec(&mut *v, "The cat sat on the mat.").expect("short");
    let short_time = short.elapsed;
    let cancel = AtomicBool::new(false);
    let start = Instant::now();
    let stats = v
        .synthesize(&long, &cancel, &mut |_| {
            cancel.store(true, Ordering::Relaxed);
            ControlFlow::Continue(())
        })
        .expect("long");
    let first = stats.first_chunk.expect("spoke");
    assert!(stats.cancelled);
    assert!(
        first < short_time * 12 + Duration::from_millis(500),
        "first chunk {first:?} vs short sentence {short_time:?}"
    );
    assert!(start.elapsed() < first + Duration::from_millis(200));
    // A long run without spaces is cut too: its first piece is bounded (240 bytes).
    let cancel = AtomicBool::new(false);
    let mut first_len = 0;
    v.synthesize(&"ab".repeat(5000), &cancel, &mut |c| {
        first_len = c.len();
        cancel.store(true, Ordering::Relaxed);
        ControlFlow::Continue(())
    })
    .expect("spaceless");
    assert!(first_len > 0 && first_len < 22050 * 60, "{first_len}");
}

#[test]
fn missing_or_corrupt_files_are_clear_errors() {
    let store = pocket_assets::Store::open_default().expect("store");
    let (onnx, config, ort) = pocket_tts::default_piper_paths(&store).expect("installed");
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("none.onnx");
    assert!(matches!(
        PiperVoice::load(&missing, &config, &ort),
        Err(TtsError::Io { .. })
    ));
    let bad_cfg = dir.path().join("bad.json");
    std::fs::write(&bad_cfg, "{\"audio\": 5}").expect("write");
    assert!(matches!(
        PiperVoice::load(&onnx, &bad_cfg, &ort),
        Err(TtsError::BadConfig { .. })
    ));
    let truncated = dir.path().join("trunc.onnx");
    let bytes = std::fs::read(&onnx).expect("read");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).expect("write");
    assert!(matches!(
        PiperVoice::load(&truncated, &config, &ort),
        Err(TtsError::Model { .. })
    ));
}
