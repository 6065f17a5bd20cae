//! The one error type of the assets crate: each variant says what went wrong and what to do.

use std::path::PathBuf;

/// Everything that can go wrong while reading the manifest, fetching or locating assets.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    #[error("the asset manifest is invalid: {0}")]
    Manifest(String),

    #[error("unknown asset '{0}' (see `pocket assets list` for the ids)")]
    UnknownAsset(String),

    #[error("unknown asset set '{0}' (known sets: default, extra, test-audio, all)")]
    UnknownSet(String),

    #[error(
        "asset '{id}' is not installed or not verified ({detail}); run `pocket assets fetch --set {set}`"
    )]
    NotInstalled {
        id: String,
        set: String,
        detail: String,
    },

    #[error("asset '{id}' has no file named '{file}'")]
    UnknownFile { id: String, file: String },

    #[error(
        "the package client `{client}` was not found on PATH; install it ({hint}) and run the fetch again"
    )]
    ClientMissing { client: String, hint: String },

    #[error(
        "could not download {registry} package {package}=={version} with `{client}` (are you offline, or is the registry unreachable?):\n{detail}"
    )]
    DownloadFailed {
        registry: String,
        package: String,
        version: String,
        client: String,
        detail: String,
    },

    #[error("package {package}=={version} was downloaded, but `{member}` is not inside it")]
    MemberMissing {
        package: String,
        version: String,
        member: String,
    },

    #[error("package archive {path} could not be read: {detail}")]
    BadArchive { path: PathBuf, detail: String },

    #[error(
        "checksum mismatch for {file}: expected sha256 {expected} ({expected_size} bytes), got {actual} ({actual_size} bytes); the file was removed"
    )]
    ChecksumMismatch {
        file: PathBuf,
        expected: String,
        actual: String,
        expected_size: u64,
        actual_size: u64,
    },

    #[error("could not determine a cache folder: set POCKET_HOME")]
    NoHome,

    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl AssetError {
    /// Wraps an I/O error with the action and path that failed.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        AssetError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// Result alias for the assets crate.
pub type Result<T, E = AssetError> = std::result::Result<T, E>;
