//! `pocket-app`: the Pocket Voice desktop app (`--help` for the file-input and test options).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

fn main() -> ExitCode {
    // Before any thread exists (see the function): no telemetry from ONNX Runtime.
    pocket_tts::piper::model::disable_runtime_telemetry();
    let launch = match pocket_app::Launch::parse(std::env::args().skip(1)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pocket-app: {e}");
            return ExitCode::from(2);
        }
    };
    if launch.help {
        println!("{}", pocket_app::USAGE);
        return ExitCode::SUCCESS;
    }
    match pocket_app::run_with(launch) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pocket-app: {e}");
            ExitCode::FAILURE
        }
    }
}
