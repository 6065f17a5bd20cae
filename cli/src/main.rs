//! `pocket`: the Pocket Voice command line — model assets, the engines one by one, the voice
//! loop, and the latency harness.

mod args;
mod cmd;
mod error_text;
mod events;
mod summary;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "pocket",
    version,
    about = "Pocket Voice: an on-device streaming voice assistant"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fetch, verify and list the model files and test audio.
    #[command(subcommand)]
    Assets(cmd::assets::AssetsCommand),
    /// Chat with the language model in the terminal (streaming; `-p` for one prompt).
    Chat(cmd::chat::ChatArgs),
    /// Text questions (one per line) through the voice loop's chat; a JSON line per answer.
    Ask(cmd::ask::AskArgs),
    /// LLM engine tools: `bench` (prefill/decode speed, memory), `synth` (random models).
    #[command(subcommand)]
    Llm(cmd::llm::LlmCommand),
    /// The main job on the default models (the README's first command).
    Demo(cmd::demo::DemoArgs),
    /// Play WAV files as the microphone through the voice loop; write the replies and latency.
    Converse(cmd::converse::ConverseArgs),
    /// Talk with the assistant on the microphone and speaker (hands-free, barge-in).
    Talk(cmd::talk::TalkArgs),
    /// Many turns at fast pace with barge-ins, typed and push-to-talk turns and resets:
    /// checks that no turn gets stuck, memory and threads stay flat, history is what was heard.
    Soak(cmd::soak::SoakArgs),
    /// Speak text into a WAV file (prints time to first chunk and RTF).
    Say(cmd::say::SayArgs),
    /// Transcribe a WAV file (prints text, per-utterance timing and RTF).
    Transcribe(cmd::transcribe::TranscribeArgs),
    /// VoiceBench: run a subset through the voice loop, merge shards, score with reports.
    #[command(subcommand)]
    Voicebench(cmd::voicebench::VoicebenchCommand),
}

fn main() -> std::process::ExitCode {
    // Before any thread exists (see the function): no telemetry from ONNX Runtime.
    pocket_tts::piper::model::disable_runtime_telemetry();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Assets(c) => cmd::assets::run(c),
        Command::Chat(a) => cmd::chat::run(a),
        Command::Ask(a) => cmd::ask::run(a),
        Command::Llm(c) => cmd::llm::run(c),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Converse(a) => cmd::converse::run(a),
        Command::Talk(a) => cmd::talk::run(a),
        Command::Soak(a) => cmd::soak::run(a),
        Command::Say(a) => cmd::say::run(a),
        Command::Transcribe(a) => cmd::transcribe::run(a),
        Command::Voicebench(c) => cmd::voicebench::run(c),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_text::error_text(&e));
            std::process::ExitCode::FAILURE
        }
    }
}
