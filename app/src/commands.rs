//! The commands the UI calls: thin wrappers over the session's pipeline handle, the settings
//! and the model check. Every error reaches the UI as `{ kind, message, missing }`.

use std::sync::atomic::Ordering;

use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State};

use crate::assets::{FETCH_HINT, MissingAsset, missing_assets, required_assets};
use crate::error::AppError;
use crate::events::UiEvent;
use crate::session::{Session, SessionInfo};
use crate::settings::{self, Choice, Mode, Settings};
use crate::state::AppState;

/// Longest typed message.
const MAX_SAY_CHARS: usize = 2000;

/// Everything the UI needs to draw itself.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub running: bool,
    pub starting: bool,
    pub session: Option<SessionInfo>,
    pub settings: Settings,
    pub models: &'static [Choice],
    pub voices: &'static [Choice],
    pub end_silence_range: (u32, u32),
    /// Model files the current settings need but are not installed.
    pub missing: Vec<MissingAsset>,
    pub fetch_hint: &'static str,
    /// Where models are looked for.
    pub model_home: String,
    /// A problem worth showing (e.g. the settings file was invalid).
    pub warning: Option<String>,
    /// Start the session right away (`--autostart` or file input).
    pub autostart: bool,
    /// The WAV files playing as the microphone, if any.
    pub file_input: Vec<String>,
}

#[tauri::command]
pub fn status(state: State<'_, AppState>) -> Result<Status, AppError> {
    let settings = state.settings().clone();
    let store = state.store()?;
    let missing = missing_assets(&store, &required_assets(&store, &settings)?)?;
    let session = state.session().as_ref().map(|s| s.info.clone());
    let launch = &state.launch;
    Ok(Status {
        running: session.is_some(),
        starting: state.starting.load(Ordering::Acquire),
        session,
        settings,
        models: settings::MODELS,
        voices: settings::VOICES,
        end_silence_range: settings::END_SILENCE_MS,
        missing,
        fetch_hint: FETCH_HINT,
        model_home: state.home.display().to_string(),
        warning: state
            .settings_warning
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take(),
        autostart: launch.autostart || !launch.inputs.is_empty(),
        file_input: launch
            .inputs
            .iter()
            .map(|c| c.path.display().to_string())
            .collect(),
    })
}

/// Loads the engines and starts listening; events stream to `on_event` until the session stops.
#[tauri::command]
pub async fn start_session(
    app: AppHandle,
    on_event: Channel<UiEvent>,
) -> Result<SessionInfo, AppError> {
    let state = app.state::<AppState>();
    if state.starting.swap(true, Ordering::AcqRel) {
        return Err(AppError::Busy);
    }
    let task_app = app.clone();
    let started = tauri::async_runtime::spawn_blocking(move || {
        let state = task_app.state::<AppState>();
        if let Some(old) = state.session().take() {
            old.stop()?;
        }
        let settings = state.settings().clone();
        let store = state.store()?;
        let send = move |ev: UiEvent| on_event.send(ev).is_ok();
        Session::start(&task_app, &store, &settings, &state.launch, send)
    })
    .await
    .map_err(|e| AppError::Internal(format!("session start failed: {e}")));
    state.starting.store(false, Ordering::Release);
    let session = started??;
    let info = session.info.clone();
    *state.session() = Some(session);
    Ok(info)
}

/// Stops listening and speaking and releases the audio devices.
#[tauri::command]
pub async fn stop_session(app: AppHandle) -> Result<(), AppError> {
    let taken = app.state::<AppState>().session().take();
    match taken {
        Some(s) => tauri::async_runtime::spawn_blocking(move || s.stop())
            .await
            .map_err(|e| AppError::Internal(format!("session stop failed: {e}")))?,
        None => Ok(()),
    }
}

/// Runs `f` on the running session's pipeline handle.
fn with_handle(
    state: &AppState,
    f: impl FnOnce(&pocket_pipeline::PipelineHandle),
) -> Result<(), AppError> {
    let guard = state.session();
    let session = guard.as_ref().ok_or(AppError::NotRunning)?;
    f(session.handle());
    Ok(())
}

/// Stops the reply now.
#[tauri::command]
pub fn stop_speaking(state: State<'_, AppState>) -> Result<(), AppError> {
    with_handle(&state, |h| h.stop_speaking())
}

/// The talk button: pressed opens an utterance (interrupting a reply), released ends it. In
/// push-to-talk mode the microphone is open only while it is held.
#[tauri::command]
pub fn push_to_talk(state: State<'_, AppState>, pressed: bool) -> Result<(), AppError> {
    let ptt = state.settings().mode == Mode::PushToTalk;
    with_handle(&state, |h| {
        if pressed {
            if ptt {
                h.set_listening(true);
            }
            h.push_to_talk(true);
        } else {
            h.push_to_talk(false);
            if ptt {
                h.set_listening(false);
            }
        }
    })
}

/// Switches between hands-free and push-to-talk (saved, and applied to the running session).
#[tauri::command]
pub fn set_mode(state: State<'_, AppState>, mode: Mode) -> Result<(), AppError> {
    let updated = {
        let mut s = state.settings();
        s.mode = mode;
        s.clone()
    };
    updated.save(&state.settings_path)?;
    if let Some(session) = state.session().as_mut() {
        session.handle().set_listening(mode == Mode::HandsFree);
        session.info.mode = mode;
    }
    Ok(())
}

/// A typed turn, answered like a spoken one.
#[tauri::command]
pub fn say(state: State<'_, AppState>, text: String) -> Result<(), AppError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(AppError::Usage("type something to say".into()));
    }
    if text.chars().count() > MAX_SAY_CHARS {
        return Err(AppError::Usage(format!(
            "a typed message can have at most {MAX_SAY_CHARS} characters"
        )));
    }
    with_handle(&state, |h| h.say(text))
}

/// Forgets the conversation so far.
#[tauri::command]
pub fn reset_conversation(state: State<'_, AppState>) -> Result<(), AppError> {
    with_handle(&state, |h| h.reset())
}

#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> Settings {
    state.settings().clone()
}

/// What saving changed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Saved {
    /// The running session uses other engines or endpointing: restart it to apply.
    pub restart_needed: bool,
    /// Model files the new settings need but are not installed.
    pub missing: Vec<MissingAsset>,
}

/// Validates and saves the settings (JSON in the app config folder).
#[tauri::command]
pub fn save_settings(state: State<'_, AppState>, settings: Settings) -> Result<Saved, AppError> {
    settings.save(&state.settings_path)?;
    let old = std::mem::replace(&mut *state.settings(), settings.clone());
    let running = state.session().is_some();
    let store = state.store()?;
    let missing = missing_assets(&store, &required_assets(&store, &settings)?)?;
    let engines_changed = old.model != settings.model
        || old.voice != settings.voice
        || old.end_silence_ms != settings.end_silence_ms
        || old.barge_in_sensitivity != settings.barge_in_sensitivity;
    if old.mode != settings.mode
        && let Some(session) = state.session().as_mut()
    {
        session
            .handle()
            .set_listening(settings.mode == Mode::HandsFree);
        session.info.mode = settings.mode;
    }
    Ok(Saved {
        restart_needed: running && engines_changed,
        missing,
    })
}
