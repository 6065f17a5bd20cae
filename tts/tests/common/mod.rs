//! Shared helpers for the integration tests: the installed joe voice, loaded once per binary.

#![allow(dead_code)]

use pocket_tts::{PiperOptions, PiperVoice};
use std::sync::{Mutex, OnceLock};

/// The Piper joe voice from the assets store (CI fetches all assets before the tests).
pub fn joe() -> std::sync::MutexGuard<'static, PiperVoice> {
    static JOE: OnceLock<Mutex<PiperVoice>> = OnceLock::new();
    JOE.get_or_init(|| {
        let store = pocket_assets::Store::open_default().expect("assets store");
        let (onnx, config, ort) =
            pocket_tts::default_piper_paths(&store).expect("run `pocket assets fetch` first");
        let options = PiperOptions {
            intra_threads: 2,
            ..PiperOptions::default()
        };
        Mutex::new(PiperVoice::load_with(&onnx, &config, &ort, &options).expect("load joe"))
    })
    .lock()
    .unwrap_or_else(|p| p.into_inner())
}

pub fn rms(x: &[f32]) -> f32 {
    if x.is_empty() {
        return 0.0;
    }
    (x.iter().map(|s| s * s).sum::<f32>() / x.len() as f32).sqrt()
}
