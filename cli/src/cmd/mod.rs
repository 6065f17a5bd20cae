//! One module per `pocket` subcommand.

pub mod assets;
pub mod demo;
pub mod say;
pub mod transcribe;
