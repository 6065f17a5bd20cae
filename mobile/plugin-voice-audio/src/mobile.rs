//! iOS and Android: the Swift / Kotlin half of the plugin owns the platform voice session and its
//! streams; these calls configure and start it. Samples flow through `crate::bridge`.

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use tauri::plugin::{PluginApi, PluginHandle};
use tauri::{AppHandle, Runtime};

use crate::bridge::{self, StreamIo};
use crate::{Error, Result, SessionInfo};

#[cfg(target_os = "ios")]
tauri::ios_plugin_binding!(init_plugin_voice_audio);

/// Package of the Kotlin classes (`android/src/main/java/`).
#[cfg(target_os = "android")]
const ANDROID_PACKAGE: &str = "app.pocketvoice.voiceaudio";

pub fn init<R: Runtime, C: DeserializeOwned>(
    _app: &AppHandle<R>,
    api: PluginApi<R, C>,
) -> Result<VoiceAudio<R>> {
    #[cfg(target_os = "android")]
    let handle = api.register_android_plugin(ANDROID_PACKAGE, "VoiceAudioPlugin")?;
    #[cfg(target_os = "ios")]
    let handle = api.register_ios_plugin(init_plugin_voice_audio)?;
    Ok(VoiceAudio(handle))
}

/// The voice session of this platform.
pub struct VoiceAudio<R: Runtime>(PluginHandle<R>);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Empty {}

/// What the native `openSession` answers.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Opened {
    granted: bool,
    #[serde(flatten)]
    info: SessionInfo,
}

impl<R: Runtime> VoiceAudio<R> {
    /// Asks for the microphone if needed, then configures the voice-communication session
    /// (Android: `MODE_IN_COMMUNICATION`; iOS: `playAndRecord` + `voiceChat`).
    pub fn open_session(&self) -> Result<SessionInfo> {
        let opened: Opened = self.0.run_mobile_plugin("openSession", Empty {})?;
        if !opened.granted {
            return Err(Error::PermissionDenied);
        }
        Ok(opened.info)
    }

    /// Routes the platform streams to `io` and starts capture and playback.
    pub fn start_streams(&self, io: StreamIo) -> Result<()> {
        bridge::install(io);
        let started: Result<()> = self
            .0
            .run_mobile_plugin::<IgnoredAny>("startStreams", Empty {})
            .map(|_| ())
            .map_err(Into::into);
        if started.is_err() {
            bridge::clear();
        }
        started
    }

    /// Stops the streams and gives the audio session back to the system.
    pub fn close_session(&self) -> Result<()> {
        let closed = self
            .0
            .run_mobile_plugin::<IgnoredAny>("closeSession", Empty {});
        bridge::clear();
        closed.map(|_| ()).map_err(Into::into)
    }
}
