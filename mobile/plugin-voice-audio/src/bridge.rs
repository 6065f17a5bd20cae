//! The audio data plane between the platform's audio threads and the app. The app installs a
//! [`StreamIo`]; the platform code calls [`capture`] with each block it records and
//! [`fill_playback`] for each block it plays — through JNI on Android, the C ABI on iOS.
//!
//! Playback never waits: if the app is installing or removing its streams at that moment, the
//! block is silence. Capture may wait briefly (the platform capture threads are not real-time).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

/// Receives captured mono samples and their sample rate (the platform's, which may change with
/// the audio route).
pub type CaptureFn = Box<dyn FnMut(&[f32], u32) + Send>;
/// Fills a block of mono playback samples; returns how many it wrote (the rest is silence).
pub type PlaybackFn = Box<dyn FnMut(&mut [f32]) -> usize + Send>;

/// Where a voice session's audio goes and comes from.
pub struct StreamIo {
    pub capture: CaptureFn,
    pub playback: PlaybackFn,
}

static CAPTURE: Mutex<Option<CaptureFn>> = Mutex::new(None);
static PLAYBACK: Mutex<Option<PlaybackFn>> = Mutex::new(None);
static CAPTURED: AtomicU64 = AtomicU64::new(0);
static PLAYED: AtomicU64 = AtomicU64::new(0);
static SILENT_BLOCKS: AtomicU64 = AtomicU64::new(0);

/// Counters of the data plane since the process started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BridgeStats {
    /// Samples handed to the app's capture function.
    pub captured: u64,
    /// Samples the app's playback function wrote.
    pub played: u64,
    /// Playback blocks that were silence because no stream was installed or it was busy.
    pub silent_blocks: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Routes platform audio to `io` (replaces what was installed).
pub fn install(io: StreamIo) {
    *lock(&CAPTURE) = Some(io.capture);
    *lock(&PLAYBACK) = Some(io.playback);
}

/// Stops routing: captured audio is dropped and playback is silence.
pub fn clear() {
    *lock(&CAPTURE) = None;
    *lock(&PLAYBACK) = None;
}

/// Whether streams are installed.
pub fn is_installed() -> bool {
    lock(&CAPTURE).is_some()
}

/// One captured block at `rate` Hz (called by the platform's capture thread).
pub fn capture(samples: &[f32], rate: u32) {
    if samples.is_empty() || rate == 0 {
        return;
    }
    if let Some(f) = lock(&CAPTURE).as_mut() {
        f(samples, rate);
        CAPTURED.fetch_add(samples.len() as u64, Ordering::Relaxed);
    }
}

/// Fills one playback block (called by the platform's playback thread or render callback).
/// Always fills the whole block; returns how many samples were the app's audio.
pub fn fill_playback(out: &mut [f32]) -> usize {
    let written = match PLAYBACK.try_lock() {
        Ok(mut g) => g.as_mut().map(|f| f(out).min(out.len())),
        Err(TryLockError::Poisoned(e)) => e.into_inner().as_mut().map(|f| f(out).min(out.len())),
        Err(TryLockError::WouldBlock) => None,
    };
    let n = written.unwrap_or(0);
    out[n..].fill(0.0);
    if written.is_none() {
        SILENT_BLOCKS.fetch_add(1, Ordering::Relaxed);
    }
    PLAYED.fetch_add(n as u64, Ordering::Relaxed);
    n
}

/// The counters so far.
pub fn stats() -> BridgeStats {
    BridgeStats {
        captured: CAPTURED.load(Ordering::Relaxed),
        played: PLAYED.load(Ordering::Relaxed),
        silent_blocks: SILENT_BLOCKS.load(Ordering::Relaxed),
    }
}

/// C ABI for the Swift side: `pocket_voice_capture(samples, len, rate)`.
///
/// # Safety
/// `samples` must point to `len` readable floats (or be null with `len == 0`).
#[cfg(any(target_os = "ios", test))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pocket_voice_capture(samples: *const f32, len: usize, rate: u32) {
    if samples.is_null() || len == 0 {
        return;
    }
    // SAFETY: the caller guarantees `len` readable floats at `samples`.
    let block = unsafe { std::slice::from_raw_parts(samples, len) };
    capture(block, rate);
}

/// C ABI for the Swift side: `pocket_voice_fill_playback(out, len) -> written`.
///
/// # Safety
/// `out` must point to `len` writable floats (or be null with `len == 0`).
#[cfg(any(target_os = "ios", test))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pocket_voice_fill_playback(out: *mut f32, len: usize) -> usize {
    if out.is_null() || len == 0 {
        return 0;
    }
    // SAFETY: the caller guarantees `len` writable floats at `out`, not aliased during the call.
    let block = unsafe { std::slice::from_raw_parts_mut(out, len) };
    fill_playback(block)
}

/// JNI for the Kotlin side: `app.pocketvoice.voiceaudio.NativeAudio.onCapture` and
/// `.fillPlayback` (static methods of a Kotlin `object`).
#[cfg(target_os = "android")]
mod android {
    use jni::JNIEnv;
    use jni::objects::{JClass, JFloatArray};
    use jni::sys::jint;
    use std::cell::RefCell;

    thread_local! {
        static SCRATCH: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    }

    fn with_scratch<T>(len: usize, f: impl FnOnce(&mut [f32]) -> T) -> T {
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < len {
                s.resize(len, 0.0);
            }
            f(&mut s[..len])
        })
    }

    #[unsafe(no_mangle)]
    pub extern "system" fn Java_app_pocketvoice_voiceaudio_NativeAudio_onCapture<'l>(
        env: JNIEnv<'l>,
        _class: JClass<'l>,
        samples: JFloatArray<'l>,
        len: jint,
        rate: jint,
    ) {
        let (Ok(len), Ok(rate)) = (usize::try_from(len), u32::try_from(rate)) else {
            return;
        };
        with_scratch(len, |buf| {
            if env.get_float_array_region(&samples, 0, buf).is_ok() {
                super::capture(buf, rate);
            }
        });
    }

    #[unsafe(no_mangle)]
    pub extern "system" fn Java_app_pocketvoice_voiceaudio_NativeAudio_fillPlayback<'l>(
        env: JNIEnv<'l>,
        _class: JClass<'l>,
        out: JFloatArray<'l>,
        len: jint,
    ) -> jint {
        let Ok(len) = usize::try_from(len) else {
            return 0;
        };
        with_scratch(len, |buf| {
            let n = super::fill_playback(buf);
            if env.set_float_array_region(&out, 0, buf).is_err() {
                return 0;
            }
            jint::try_from(n).unwrap_or(0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The slots are process-wide: one test drives the whole life cycle.
    #[test]
    fn routes_capture_and_playback_and_is_silent_without_streams() {
        let mut out = [1.0f32; 8];
        clear();
        assert_eq!(fill_playback(&mut out), 0);
        assert_eq!(out, [0.0; 8], "no stream: silence");

        let got = Arc::new(Mutex::new(Vec::<(usize, u32)>::new()));
        let log = got.clone();
        install(StreamIo {
            capture: Box::new(move |s, rate| lock(&log).push((s.len(), rate))),
            playback: Box::new(|out| {
                out[..3].fill(0.5);
                3
            }),
        });
        assert!(is_installed());
        let before = stats();
        let block = [0.25f32; 160];
        // SAFETY: `block` holds 160 floats; `out` holds 8.
        unsafe {
            pocket_voice_capture(block.as_ptr(), block.len(), 16_000);
            pocket_voice_capture(std::ptr::null(), 5, 16_000);
        }
        capture(&block[..10], 48_000);
        capture(&block[..10], 0);
        out.fill(9.0);
        // SAFETY: `out` holds 8 writable floats.
        let n = unsafe { pocket_voice_fill_playback(out.as_mut_ptr(), out.len()) };
        assert_eq!(n, 3);
        assert_eq!(out, [0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(*lock(&got), vec![(160, 16_000), (10, 48_000)]);
        let after = stats();
        assert_eq!(after.captured - before.captured, 170);
        assert_eq!(after.played - before.played, 3);

        clear();
        assert!(!is_installed());
        capture(&block, 16_000);
        assert_eq!(lock(&got).len(), 2, "cleared: capture is dropped");
    }
}
