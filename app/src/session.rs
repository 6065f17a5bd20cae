//! A running voice session: the engines for the chosen settings, the voice loop, its audio
//! (desktop devices, the phone's voice streams, or input files) and the thread that streams its
//! events to the UI.

use std::thread::JoinHandle;
use std::time::Instant;

use pocket_assets::Store;
use pocket_pipeline::audio::device::{self, DeviceAudio};
use pocket_pipeline::{Pipeline, PipelineConfig, PipelineHandle};
use serde::Serialize;
use tauri::AppHandle;
use tauri_plugin_voice_audio::{EchoCanceller, VoiceAudioExt};

use crate::assets::{missing_assets, required_assets};
use crate::engines;
use crate::error::AppError;
use crate::events::{self, UiEvent};
use crate::input::FileAudio;
use crate::launch::Launch;
use crate::platform::PlatformAudio;
use crate::settings::{Mode, Settings};

/// Output rate when no device decides it (file input).
const FILE_OUTPUT_RATE: u32 = 22_050;

/// What the UI shows about a started session.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub model: String,
    pub voice: String,
    pub input: String,
    pub output: String,
    /// Which echo canceller keeps the assistant from hearing itself.
    pub echo_cancelling: &'static str,
    pub mode: Mode,
    /// Engine loading time.
    pub load_ms: u64,
    /// Things that work but not as asked (e.g. the built-in voice replaced a missing one).
    pub warnings: Vec<String>,
}

fn echo_label(canceller: EchoCanceller, file_input: bool) -> &'static str {
    match (file_input, canceller) {
        (true, _) => "off (file input has no echo)",
        (false, EchoCanceller::App) => "in the app (AEC3)",
        (false, EchoCanceller::AndroidAec) => "Android AcousticEchoCanceler",
        (false, EchoCanceller::IosVoiceProcessing) => "iOS voice processing",
    }
}

/// Where the session's audio comes from and goes to; dropping it stops the streams.
enum Audio {
    Device(#[allow(dead_code)] DeviceAudio),
    Platform(#[allow(dead_code)] PlatformAudio),
    Files(FileAudio),
}

/// A started voice session.
pub struct Session {
    pipeline: Option<Pipeline>,
    handle: PipelineHandle,
    audio: Option<Audio>,
    forwarder: Option<JoinHandle<()>>,
    pub info: SessionInfo,
}

impl Session {
    /// Loads the engines for `settings`, starts the loop and its audio, and streams events to
    /// `send` (which returns `false` once the UI is gone).
    pub fn start(
        app: &AppHandle,
        store: &Store,
        settings: &Settings,
        launch: &Launch,
        send: impl Fn(UiEvent) -> bool + Send + Sync + Clone + 'static,
    ) -> Result<Self, AppError> {
        settings.validate()?;
        let missing = missing_assets(store, &required_assets(store, settings)?)?;
        if !missing.is_empty() {
            return Err(AppError::ModelsMissing(missing));
        }
        let file_input = !launch.inputs.is_empty();
        let voice_session = if file_input {
            None
        } else {
            Some(app.voice_audio().open_session()?)
        };
        let platform = voice_session.as_ref().is_some_and(|s| s.platform_streams);
        let output_rate = match &voice_session {
            None => FILE_OUTPUT_RATE,
            Some(s) if s.platform_streams => s.playback_rate.unwrap_or(48_000),
            Some(_) => device::default_output_rate()?,
        };
        let echo_canceller = match &voice_session {
            Some(s) => s.echo_canceller,
            None => EchoCanceller::App,
        };
        let config = PipelineConfig {
            endpoint: settings.endpoint(),
            output_rate,
            // Phones cancel echo in the platform; file input has no echo path.
            echo_cancel: echo_canceller == EchoCanceller::App && !file_input,
            ..PipelineConfig::default()
        };

        let started = Instant::now();
        let loaded = engines::load(store, settings)?;
        let load_ms = started.elapsed().as_millis() as u64;
        let (pipeline, ports) = Pipeline::start(loaded.engines, config)?;
        let handle = pipeline.handle();
        if settings.mode == Mode::PushToTalk {
            handle.set_listening(false);
        }

        // Subscribe before any audio flows, so the UI sees every event.
        let fwd_handle = handle.clone();
        let fwd_send = send.clone();
        let forwarder = std::thread::Builder::new()
            .name("pocket-ui-events".into())
            .spawn(move || events::forward(&fwd_handle, fwd_send))
            .map_err(|e| AppError::Internal(format!("cannot start the event thread: {e}")))?;

        let (audio, input, output) = if file_input {
            let clip_send = send.clone();
            let names: Vec<String> = launch
                .inputs
                .iter()
                .map(|c| c.path.display().to_string())
                .collect();
            let files = FileAudio::start(
                ports,
                &handle,
                &launch.inputs,
                launch.output.clone(),
                Box::new(move |name: &str| {
                    clip_send(UiEvent::InputClip {
                        name: name.to_string(),
                    });
                }),
            )?;
            let out = match &launch.output {
                Some(p) => format!("file {}", p.display()),
                None => "real-time sink (no speaker)".into(),
            };
            (
                Audio::Files(files),
                format!("file {}", names.join(", ")),
                out,
            )
        } else if platform {
            let p = PlatformAudio::start(app, ports)?;
            let route = voice_session
                .as_ref()
                .and_then(|s| s.route.clone())
                .unwrap_or_else(|| "phone".into());
            (Audio::Platform(p), "phone microphone".into(), route)
        } else {
            let d = DeviceAudio::start(ports)?;
            let (i, o) = (d.input_name.clone(), d.output_name.clone());
            (Audio::Device(d), i, o)
        };

        Ok(Self {
            pipeline: Some(pipeline),
            handle,
            audio: Some(audio),
            forwarder: Some(forwarder),
            info: SessionInfo {
                model: loaded.model,
                voice: loaded.voice,
                input,
                output,
                echo_cancelling: echo_label(echo_canceller, file_input),
                mode: settings.mode,
                load_ms,
                warnings: loaded.warnings,
            },
        })
    }

    pub fn handle(&self) -> &PipelineHandle {
        &self.handle
    }

    /// Stops the loop and its audio and waits for every thread.
    pub fn stop(mut self) -> Result<(), AppError> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<(), AppError> {
        self.handle.shutdown();
        let finished = match self.audio.take() {
            Some(Audio::Files(f)) => f.finish(),
            _ => Ok(()),
        };
        if let Some(p) = self.pipeline.take() {
            p.shutdown();
        }
        if let Some(t) = self.forwarder.take() {
            let _ = t.join();
        }
        finished
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}
