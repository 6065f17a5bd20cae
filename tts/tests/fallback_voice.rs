//! The built-in fallback voice: no download, streams, cancels, survives bad input.

use pocket_tts::{FallbackVoice, Voice, speak_to_vec};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

#[test]
fn speaks_without_any_asset() {
    let mut v = FallbackVoice::new();
    assert_eq!(v.sample_rate(), 16000);
    let (pcm, stats) =
        speak_to_vec(&mut v, "Hello, this is the fallback voice. It has 3 cats.").expect("speak");
    let secs = pcm.len() as f64 / 16000.0;
    assert!((2.0..10.0).contains(&secs), "{secs}");
    assert!(stats.first_chunk.is_some() && stats.chunks >= 2);
    assert!(pcm.iter().any(|s| s.abs() > 0.05));
}

#[test]
fn cancels_and_handles_bad_input() {
    let mut v = FallbackVoice::new();
    let cancel = AtomicBool::new(false);
    let long = "words without an end ".repeat(500);
    let mut n = 0;
    let stats = v
        .synthesize(&long, &cancel, &mut |_| {
            n += 1;
            cancel.store(true, Ordering::Relaxed);
            ControlFlow::Continue(())
        })
        .expect("speak");
    assert_eq!(n, 1);
    assert!(stats.cancelled);
    for text in ["", "!!! ??? ###", "日本語のテキスト"] {
        let (pcm, _) = speak_to_vec(&mut v, text).expect("no error");
        assert!(pcm.is_empty(), "{text:?}");
    }
}
