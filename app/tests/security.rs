//! The app's security settings, checked as files: a strict Content Security Policy with no
//! remote source, a capability that allows exactly the app's own commands (no shell, http, fs or
//! core plugin permissions), and a UI and plugin set that never reach the network.

use serde_json::Value;
use std::path::Path;

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(rel: &str) -> Value {
    serde_json::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The command names in build.rs's `COMMANDS` list.
fn build_commands() -> Vec<String> {
    let src = read("build.rs");
    let list = src
        .split_once("const COMMANDS: &[&str] = &[")
        .and_then(|(_, rest)| rest.split_once("];"))
        .map(|(list, _)| list)
        .expect("COMMANDS in build.rs");
    list.split(',')
        .map(|s| s.trim().trim_matches('"').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[test]
fn the_csp_allows_only_the_app_itself() {
    let conf = json("tauri.conf.json");
    let csp = conf["app"]["security"]["csp"]
        .as_object()
        .expect("a CSP object in tauri.conf.json");
    assert_eq!(csp["default-src"], "'self'");
    assert_eq!(csp["script-src"], "'self'");
    assert_eq!(csp["object-src"], "'none'");
    for (directive, value) in csp {
        let v = value.as_str().expect("string");
        assert!(!v.contains("unsafe"), "{directive}: {v}");
        assert!(!v.contains('*'), "{directive}: {v}");
        for source in v.split_whitespace() {
            let remote = source.starts_with("http") && source != "http://ipc.localhost";
            assert!(!remote, "{directive} allows the remote source {source}");
        }
    }
    assert_eq!(conf["app"]["security"]["freezePrototype"], true);
    assert_eq!(
        conf["build"]["frontendDist"], "ui",
        "static files, no dev server"
    );
    assert!(conf["build"].get("devUrl").is_none());
}

#[test]
fn the_capability_allows_exactly_the_app_commands() {
    let commands = build_commands();
    assert!(commands.len() >= 8, "{commands:?}");
    let lib = read("src/lib.rs");
    for c in &commands {
        assert!(
            lib.contains(&format!("commands::{c},")) || lib.contains(&format!("picker::{c},")),
            "{c} is not in generate_handler!"
        );
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("capabilities");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("capabilities/")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(files.len(), 1, "one capability: {files:?}");
    let cap = json("capabilities/main.json");
    assert_eq!(cap["windows"], serde_json::json!(["main"]));
    assert!(
        cap.get("remote").is_none(),
        "no remote URLs may use the commands"
    );
    let mut allowed: Vec<String> = cap["permissions"]
        .as_array()
        .expect("permissions")
        .iter()
        .map(|p| p.as_str().expect("plain permission names").to_string())
        .collect();
    allowed.sort();
    let mut expected: Vec<String> = commands
        .iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .collect();
    expected.sort();
    assert_eq!(
        allowed, expected,
        "only allow-<command> for each app command"
    );
}

#[test]
fn nothing_reaches_the_network() {
    let manifest = read("Cargo.toml");
    for plugin in [
        "tauri-plugin-http",
        "tauri-plugin-shell",
        "tauri-plugin-fs",
        "reqwest",
    ] {
        assert!(!manifest.contains(plugin), "pocket-app depends on {plugin}");
    }
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui");
    let mut checked = 0;
    for entry in std::fs::read_dir(&ui).expect("ui/") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("text file");
        // The SVG namespace is a name, not a place the UI loads from.
        let text = text.replace("http://www.w3.org/2000/svg", "");
        for bad in [
            "http://",
            "https://",
            "//cdn",
            "fetch(",
            "XMLHttpRequest",
            "WebSocket",
        ] {
            assert!(!text.contains(bad), "{} contains {bad:?}", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 5, "index.html, style.css and the scripts");
}
