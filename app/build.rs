//! Tauri build step: embeds the config and the UI, and generates an `allow-<command>` permission
//! for each app command so the capability in `capabilities/` can allow exactly those.

/// Every command the UI may call (see `src/commands.rs`).
const COMMANDS: &[&str] = &[
    "status",
    "start_session",
    "stop_session",
    "stop_speaking",
    "push_to_talk",
    "set_mode",
    "say",
    "reset_conversation",
    "get_settings",
    "save_settings",
    "pick_model_file",
];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        eprintln!("tauri build step failed: {e:#}");
        std::process::exit(1);
    }
}
