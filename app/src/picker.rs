//! The native file picker for choosing a GGUF language model in the settings (GTK, Cocoa or
//! Windows dialogs on the desktop; the system document picker on the phones). It only returns
//! the chosen path: the UI puts it in the model field, and saving the settings checks it like a
//! typed one. A document that is not a file on the device (an Android `content://` link) is a
//! clear error, since the model is memory-mapped from a path.

use tauri::AppHandle;
use tauri_plugin_dialog::DialogExt;

use crate::error::AppError;

/// Opens the picker (filtered to `.gguf`) and returns the chosen file's path, or `None` when
/// the user cancels. The dialog blocks a worker thread, never the UI thread.
#[tauri::command]
pub async fn pick_model_file(app: AppHandle) -> Result<Option<String>, AppError> {
    let picked = tauri::async_runtime::spawn_blocking(move || {
        app.dialog()
            .file()
            .set_title("Choose a GGUF language model")
            .add_filter("GGUF model", &["gguf"])
            .blocking_pick_file()
    })
    .await
    .map_err(|e| AppError::Internal(format!("the file picker failed: {e}")))?;
    let Some(picked) = picked else {
        return Ok(None);
    };
    let path = picked.into_path().map_err(|_| {
        AppError::Settings(
            "the chosen model is not a file on this device (a document link): copy it into \
             the models folder and choose it there"
                .into(),
        )
    })?;
    path.into_os_string()
        .into_string()
        .map(Some)
        .map_err(|p| AppError::Settings(format!("the model path {p:?} is not valid UTF-8")))
}
