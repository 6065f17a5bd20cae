//! Desktop: no platform voice session. The app opens the default devices itself (cpal through
//! `pocket-pipeline`) and cancels the echo of its own voice in Rust (AEC3).

use serde::de::DeserializeOwned;
use tauri::plugin::PluginApi;
use tauri::{AppHandle, Runtime};

use crate::bridge::StreamIo;
use crate::{EchoCanceller, Error, Result, SessionInfo};

pub fn init<R: Runtime, C: DeserializeOwned>(
    app: &AppHandle<R>,
    _api: PluginApi<R, C>,
) -> Result<VoiceAudio<R>> {
    Ok(VoiceAudio(app.clone()))
}

/// The voice session of this platform.
pub struct VoiceAudio<R: Runtime>(#[allow(dead_code)] AppHandle<R>);

impl<R: Runtime> VoiceAudio<R> {
    /// Nothing to configure on the desktop: reports that the app streams audio itself.
    pub fn open_session(&self) -> Result<SessionInfo> {
        Ok(SessionInfo {
            platform_streams: false,
            echo_canceller: EchoCanceller::App,
            playback_rate: None,
            route: None,
        })
    }

    /// There are no platform streams on the desktop.
    pub fn start_streams(&self, _io: StreamIo) -> Result<()> {
        Err(Error::NoPlatformStreams)
    }

    /// Nothing to release.
    pub fn close_session(&self) -> Result<()> {
        crate::bridge::clear();
        Ok(())
    }
}
