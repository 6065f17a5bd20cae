//! The app's one error type. It reaches the UI as `{ kind, message, missing }`: a readable
//! message, a machine kind, and for missing models the list of what to fetch.

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use crate::assets::{FETCH_HINT, MissingAsset};

/// Errors of the app; variants say what the user can do.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Model files are not installed: run the fetch command.
    #[error("model files are missing ({}); install them with `{FETCH_HINT}`", ids(.0))]
    ModelsMissing(Vec<MissingAsset>),
    /// The model store cannot be read: check `POCKET_HOME` and the folder's permissions.
    #[error("model store: {0}")]
    Assets(#[from] pocket_assets::AssetError),
    /// The voice loop failed to start or stopped: the message says which part.
    #[error(transparent)]
    Pipeline(#[from] pocket_pipeline::PipelineError),
    /// The platform audio session failed (permission, device busy).
    #[error(transparent)]
    Audio(#[from] tauri_plugin_voice_audio::Error),
    /// A settings value is out of range or the file cannot be written.
    #[error("settings: {0}")]
    Settings(String),
    /// A command that needs a running voice session came without one: press Start.
    #[error("no voice session is running: press Start first")]
    NotRunning,
    /// Start was pressed while a session was loading: wait for it.
    #[error("a voice session is already starting")]
    Busy,
    /// A command-line option is malformed.
    #[error("command line: {0}")]
    Usage(String),
    /// Something the app relies on failed (a thread, the window system).
    #[error("{0}")]
    Internal(String),
}

fn ids(missing: &[MissingAsset]) -> String {
    missing
        .iter()
        .map(|m| m.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl AppError {
    /// A short machine name for the UI.
    pub fn kind(&self) -> &'static str {
        match self {
            AppError::ModelsMissing(_) => "models_missing",
            AppError::Assets(_) => "assets",
            AppError::Pipeline(_) => "pipeline",
            AppError::Audio(_) => "audio",
            AppError::Settings(_) => "settings",
            AppError::NotRunning => "not_running",
            AppError::Busy => "busy",
            AppError::Usage(_) => "usage",
            AppError::Internal(_) => "internal",
        }
    }
}

impl Serialize for AppError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("AppError", 3)?;
        s.serialize_field("kind", self.kind())?;
        s.serialize_field("message", &self.to_string())?;
        let missing: &[MissingAsset] = match self {
            AppError::ModelsMissing(m) => m,
            _ => &[],
        };
        s.serialize_field("missing", missing)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_to_a_readable_message_with_what_to_fetch() {
        let e = AppError::ModelsMissing(vec![MissingAsset {
            id: "whisper-tiny.en".into(),
            detail: "model.bin is missing".into(),
        }]);
        let v = serde_json::to_value(&e).expect("json");
        assert_eq!(v["kind"], "models_missing");
        let msg = v["message"].as_str().expect("message");
        assert!(
            msg.contains("whisper-tiny.en") && msg.contains(FETCH_HINT),
            "{msg}"
        );
        assert_eq!(v["missing"][0]["id"], "whisper-tiny.en");
        let v = serde_json::to_value(AppError::NotRunning).expect("json");
        assert_eq!(v["kind"], "not_running");
        assert!(v["message"].as_str().expect("message").contains("Start"));
    }
}
