//! Piper voices: config, ONNX model, and the voice that ties them to the text front end.

pub mod config;
pub mod model;
pub mod voice;
