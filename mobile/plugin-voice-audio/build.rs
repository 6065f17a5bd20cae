//! Registers the plugin with Tauri and points it at its Kotlin and Swift projects. The plugin
//! has no commands for the webview: only the app's Rust code drives it.

const COMMANDS: &[&str] = &[];

fn main() {
    tauri_plugin::Builder::new(COMMANDS)
        .android_path("android")
        .ios_path("ios")
        .build();
}
