//! The plugin's error: serializes to its message so it can reach a webview.

use serde::{Serialize, Serializer};

pub type Result<T> = std::result::Result<T, Error>;

/// Errors of the voice session; variants say what the caller can do.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user refused the microphone: ask them to allow it in the system settings.
    #[error(
        "microphone permission denied: allow Pocket Voice to use the microphone in the system settings"
    )]
    PermissionDenied,
    /// This platform has no platform streams (desktop): open the devices with cpal instead.
    #[error("no platform voice streams on this platform: use the app's own audio devices")]
    NoPlatformStreams,
    /// The platform audio stack refused (no input route, session busy with a call, ...).
    #[error("platform audio: {0}")]
    Platform(String),
    #[cfg(mobile)]
    #[error(transparent)]
    PluginInvoke(#[from] tauri::plugin::mobile::PluginInvokeError),
}

impl Serialize for Error {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}
