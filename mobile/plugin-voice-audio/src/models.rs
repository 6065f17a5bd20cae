//! What a voice session reports back to the app.

use serde::{Deserialize, Serialize};

/// Which echo canceller protects the microphone from the assistant's own voice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EchoCanceller {
    /// Android's `AcousticEchoCanceler` on the voice-communication input.
    AndroidAec,
    /// iOS voice processing (the VPIO unit) on the audio engine's input node.
    IosVoiceProcessing,
    /// None from the platform: the app cancels echo itself (desktop: AEC3 in the pipeline).
    App,
}

/// The opened voice session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    /// The platform streams audio through [`crate::bridge`] (phones); `false`: the app opens
    /// its own devices (desktop).
    pub platform_streams: bool,
    pub echo_canceller: EchoCanceller,
    /// Rate the playback stream pulls at (start the voice loop's output at this rate).
    pub playback_rate: Option<u32>,
    /// Where audio goes, as the platform names it (e.g. "Speaker", "Bluetooth headset").
    pub route: Option<String>,
}
