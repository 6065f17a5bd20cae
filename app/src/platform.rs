//! The phone's audio: the voice-audio plugin's platform streams (voice-communication capture and
//! playback with the platform echo canceller) attached to the voice loop's ports. Captured audio
//! arrives at the platform's rate and is converted to the loop's 16 kHz here.

use pocket_pipeline::AudioPorts;
use pocket_pipeline::resample::{Resampler, new_resampler};
use tauri::AppHandle;
use tauri_plugin_voice_audio::{StreamIo, VoiceAudioExt};

use crate::error::AppError;

const MIC_RATE: u32 = 16_000;

/// Platform streams attached to a pipeline; closing the session when dropped.
pub struct PlatformAudio {
    app: AppHandle,
}

impl PlatformAudio {
    /// Starts the platform streams (the session must be open: `VoiceAudio::open_session`).
    pub fn start(app: &AppHandle, ports: AudioPorts) -> Result<Self, AppError> {
        app.voice_audio().start_streams(stream_io(ports))?;
        Ok(Self { app: app.clone() })
    }
}

impl Drop for PlatformAudio {
    fn drop(&mut self) {
        let _ = self.app.voice_audio().close_session();
    }
}

/// The capture and playback functions the platform threads call.
pub fn stream_io(ports: AudioPorts) -> StreamIo {
    let AudioPorts {
        mut mic,
        mut speaker,
        ..
    } = ports;
    let mut resampler: Option<Resampler> = None;
    let mut converted: Vec<f32> = Vec::with_capacity(4096);
    StreamIo {
        capture: Box::new(move |samples: &[f32], rate: u32| {
            if rate == MIC_RATE {
                mic.push(samples);
                return;
            }
            if resampler.as_ref().map(Resampler::from_rate) != Some(rate) {
                resampler = Some(new_resampler(rate, MIC_RATE));
            }
            if let Some(r) = resampler.as_mut() {
                converted.clear();
                r.process(samples, &mut converted);
                mic.push(&converted);
            }
        }),
        playback: Box::new(move |out: &mut [f32]| speaker.fill(out)),
    }
}
