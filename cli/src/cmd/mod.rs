//! One module per `pocket` subcommand.

pub mod ask;
pub mod assets;
pub mod chat;
pub mod converse;
pub mod demo;
pub mod llm;
pub mod say;
pub mod soak;
pub mod talk;
pub mod transcribe;
pub mod voicebench;
