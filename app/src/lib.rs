//! Pocket Voice app: a Tauri 2 shell over the voice loop (`pocket-pipeline`) — the desktop app
//! today and the same code as the iPhone and Android app. The UI (`ui/`, plain HTML/CSS/JS)
//! calls the thin commands in [`commands`] and receives the loop's events over a
//! `tauri::ipc::Channel` as they happen.

pub mod assets;
pub mod commands;
pub mod engines;
pub mod error;
pub mod events;
pub mod input;
pub mod launch;
pub mod picker;
mod platform;
pub mod session;
pub mod settings;
mod state;

pub use assets::{FETCH_HINT, MissingAsset, missing_default_assets};
pub use error::AppError;
pub use launch::{Launch, USAGE};

use std::path::PathBuf;

use tauri::{Manager, RunEvent};

use crate::state::AppState;

/// The phone entry point (and the desktop one without options).
#[cfg_attr(mobile, tauri::mobile_entry_point)]
pub fn run() {
    if let Err(e) = run_with(Launch::default()) {
        eprintln!("Pocket Voice: {e}");
    }
}

/// Runs the app until its window closes.
pub fn run_with(launch: Launch) -> Result<(), AppError> {
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_voice_audio::init())
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            let config_dir = match &launch.config_dir {
                Some(d) => d.clone(),
                None => app.path().app_config_dir()?,
            };
            let home = model_home(app.handle())?;
            app.manage(AppState::new(launch, config_dir, home));
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::status,
            commands::start_session,
            commands::stop_session,
            commands::stop_speaking,
            commands::push_to_talk,
            commands::set_mode,
            commands::say,
            commands::reset_conversation,
            commands::get_settings,
            commands::save_settings,
            picker::pick_model_file,
        ])
        .build(tauri::generate_context!())
        .map_err(|e| AppError::Internal(format!("cannot start the app window: {e}")))?;
    app.run(|handle, event| {
        if let RunEvent::Exit = event
            && let Some(state) = handle.try_state::<AppState>()
            && let Some(session) = state.session().take()
            && let Err(e) = session.stop()
        {
            eprintln!("Pocket Voice: {e}");
        }
    });
    Ok(())
}

/// Where models live: `$POCKET_HOME` if set; else the user cache folder on the desktop, and on a
/// phone the app bundle's `models/` folder if it has one, else `models/` in the app's data folder
/// (see `mobile/README.md` for how they get there).
fn model_home(app: &tauri::AppHandle) -> Result<PathBuf, AppError> {
    if let Some(home) = std::env::var_os(pocket_assets::HOME_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    #[cfg(mobile)]
    {
        if let Ok(bundled) = app.path().resource_dir().map(|d| d.join("models"))
            && bundled.is_dir()
        {
            return Ok(bundled);
        }
        app.path()
            .app_data_dir()
            .map(|d| d.join("models"))
            .map_err(|e| AppError::Internal(format!("no app data folder: {e}")))
    }
    #[cfg(desktop)]
    {
        let _ = app;
        Ok(pocket_assets::default_home()?)
    }
}
