//! Platform audio glue for a voice app, as a Tauri plugin. On a phone, the operating system's
//! voice-communication path does capture and playback with its echo canceller (Android:
//! `AudioRecord` on `VOICE_COMMUNICATION` with `AcousticEchoCanceler`, `AudioTrack` with
//! `USAGE_VOICE_COMMUNICATION`; iOS: `AVAudioSession` `playAndRecord`/`voiceChat` with voice
//! processing on the audio engine) and moves the samples through [`bridge`]. On the desktop there
//! is no platform voice session: the app opens its devices itself (cpal) and cancels echo in Rust.
//!
//! Control goes through the plugin's Kotlin/Swift commands; audio goes through plain native calls
//! (JNI on Android, C ABI on iOS) so no sample ever passes the JSON bridge.

use tauri::plugin::{Builder, TauriPlugin};
use tauri::{Manager, Runtime};

pub mod bridge;
mod error;
mod models;

#[cfg(desktop)]
mod desktop;
#[cfg(mobile)]
mod mobile;

pub use bridge::StreamIo;
pub use error::{Error, Result};
pub use models::{EchoCanceller, SessionInfo};

#[cfg(desktop)]
pub use desktop::VoiceAudio;
#[cfg(mobile)]
pub use mobile::VoiceAudio;

/// Access to the plugin from an app, its handle or a window.
pub trait VoiceAudioExt<R: Runtime> {
    fn voice_audio(&self) -> &VoiceAudio<R>;
}

impl<R: Runtime, T: Manager<R>> VoiceAudioExt<R> for T {
    fn voice_audio(&self) -> &VoiceAudio<R> {
        self.state::<VoiceAudio<R>>().inner()
    }
}

/// The plugin: register it with `tauri::Builder::plugin(tauri_plugin_voice_audio::init())`.
pub fn init<R: Runtime>() -> TauriPlugin<R> {
    Builder::new("voice-audio")
        .setup(|app, api| {
            #[cfg(mobile)]
            let voice_audio = mobile::init(app, api)?;
            #[cfg(desktop)]
            let voice_audio = desktop::init(app, api)?;
            app.manage(voice_audio);
            Ok(())
        })
        .build()
}
