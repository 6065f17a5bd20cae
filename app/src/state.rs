//! The app's shared state: launch options, where settings and models live, the settings, and
//! the running session (at most one).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard};

use pocket_assets::{Manifest, Store};

use crate::error::AppError;
use crate::launch::Launch;
use crate::session::Session;
use crate::settings::{self, Settings};

pub struct AppState {
    pub launch: Launch,
    /// `settings.json` in the app config folder (or `--config-dir`).
    pub settings_path: PathBuf,
    /// The model folder (`$POCKET_HOME`, else the platform default).
    pub home: PathBuf,
    pub settings: Mutex<Settings>,
    /// Why the settings file was not used, once, for the UI.
    pub settings_warning: Mutex<Option<String>>,
    pub session: Mutex<Option<Session>>,
    /// A session is loading (engines take a moment).
    pub starting: AtomicBool,
}

impl AppState {
    pub fn new(launch: Launch, config_dir: PathBuf, home: PathBuf) -> Self {
        let settings_path = config_dir.join(settings::FILE_NAME);
        let (settings, warning) = Settings::load(&settings_path);
        Self {
            launch,
            settings_path,
            home,
            settings: Mutex::new(settings),
            settings_warning: Mutex::new(warning),
            session: Mutex::new(None),
            starting: AtomicBool::new(false),
        }
    }

    /// The model store (the manifest is compiled in; opening is cheap).
    pub fn store(&self) -> Result<Store, AppError> {
        Ok(Store::new(&self.home, Manifest::builtin()?))
    }

    pub fn settings(&self) -> MutexGuard<'_, Settings> {
        lock(&self.settings)
    }

    pub fn session(&self) -> MutexGuard<'_, Option<Session>> {
        lock(&self.session)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
