//! One module per `pocket` subcommand.

pub mod assets;
pub mod chat;
pub mod demo;
pub mod llm;
pub mod say;
pub mod transcribe;
