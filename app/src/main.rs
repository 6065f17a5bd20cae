//! `pocket-app`: until the Tauri UI lands (issue 7), reports whether the default models are ready.

fn main() -> std::process::ExitCode {
    let store = match pocket_assets::Store::open_default() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match pocket_app::missing_default_assets(&store) {
        Ok(missing) if missing.is_empty() => {
            println!(
                "All default models are installed under {}.",
                store.root().display()
            );
            std::process::ExitCode::SUCCESS
        }
        Ok(missing) => {
            for m in &missing {
                eprintln!("missing model {}: {}", m.id, m.detail);
            }
            eprintln!("Install them with: {}", pocket_app::FETCH_HINT);
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
