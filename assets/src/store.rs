//! The cache folder (`POCKET_HOME`) and where each asset's files live in it.

use crate::error::{AssetError, Result};
use crate::manifest::{Asset, Manifest};
use crate::verify::{FileState, check_file, quick_check};
use std::path::{Path, PathBuf};

/// Environment variable that overrides the cache folder.
pub const HOME_ENV: &str = "POCKET_HOME";

/// The cache folder with the manifest that describes it.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    manifest: Manifest,
}

/// One file's state, for listings.
#[derive(Debug, Clone)]
pub struct FileStatus {
    pub name: String,
    pub path: PathBuf,
    pub state: FileState,
}

/// One asset's state, for listings.
#[derive(Debug, Clone)]
pub struct AssetStatus {
    pub id: String,
    pub files: Vec<FileStatus>,
}

impl AssetStatus {
    pub fn is_verified(&self) -> bool {
        self.files.iter().all(|f| f.state.is_verified())
    }

    /// `verified`, `missing`, or the first problem found.
    pub fn summary(&self) -> String {
        if self.is_verified() {
            return "verified".into();
        }
        if self.files.iter().all(|f| f.state == FileState::Missing) {
            return "missing".into();
        }
        self.files
            .iter()
            .find(|f| !f.state.is_verified())
            .map(|f| format!("{}: {}", f.name, f.state.describe()))
            .unwrap_or_default()
    }
}

/// The default cache folder: `$POCKET_HOME`, else `<user cache dir>/pocket-voice`.
pub fn default_home() -> Result<PathBuf> {
    if let Some(home) = std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    dirs::cache_dir()
        .map(|d| d.join("pocket-voice"))
        .ok_or(AssetError::NoHome)
}

impl Store {
    /// The store at the default home with the built-in manifest.
    pub fn open_default() -> Result<Self> {
        Ok(Self::new(default_home()?, Manifest::builtin()?))
    }

    /// A store at a chosen folder (tests use temporary ones).
    pub fn new(root: impl Into<PathBuf>, manifest: Manifest) -> Self {
        Store {
            root: root.into(),
            manifest,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The folder of one asset (whether or not it is installed).
    pub fn asset_dir(&self, id: &str) -> PathBuf {
        self.root.join(id)
    }

    /// Hashes every file of an asset and reports its state.
    pub fn status(&self, asset: &Asset) -> Result<AssetStatus> {
        let dir = self.asset_dir(&asset.id);
        let mut files = Vec::with_capacity(asset.files.len());
        for f in &asset.files {
            let path = dir.join(&f.name);
            let state = check_file(&path, f.size, &f.sha256)?;
            files.push(FileStatus {
                name: f.name.clone(),
                path,
                state,
            });
        }
        Ok(AssetStatus {
            id: asset.id.clone(),
            files,
        })
    }

    /// The folder of an installed asset, after a cheap size check of all its files.
    ///
    /// Engines call this instead of hard-coding paths; a missing asset gives an error that
    /// names the command which fetches it.
    pub fn require(&self, id: &str) -> Result<PathBuf> {
        let asset = self.manifest.asset(id)?;
        let dir = self.asset_dir(id);
        for f in &asset.files {
            let state = quick_check(&dir.join(&f.name), f.size);
            if !state.is_verified() {
                return Err(AssetError::NotInstalled {
                    id: id.to_string(),
                    set: asset.primary_set().to_string(),
                    detail: format!("{}: {}", f.name, state.describe()),
                });
            }
        }
        Ok(dir)
    }

    /// The assets of `set` for this platform that [`require`](Self::require) refuses (the
    /// cheap size check): what a test or a command must fetch before it can run.
    pub fn missing(&self, set: &str) -> Result<Vec<String>> {
        Ok(self
            .manifest
            .set(set)?
            .into_iter()
            .filter(|a| a.for_this_platform() && self.require(&a.id).is_err())
            .map(|a| a.id.clone())
            .collect())
    }

    /// The path of one installed file of an asset.
    pub fn require_file(&self, id: &str, name: &str) -> Result<PathBuf> {
        let asset = self.manifest.asset(id)?;
        asset.file(name)?;
        Ok(self.require(id)?.join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_store_misses_every_asset_of_a_set() {
        let home = tempfile::tempdir().expect("tempdir");
        let store = Store::new(home.path(), Manifest::builtin().expect("manifest"));
        let missing = store.missing("default").expect("a known set");
        let default: Vec<String> = store
            .manifest()
            .set("default")
            .expect("set")
            .into_iter()
            .filter(|a| a.for_this_platform())
            .map(|a| a.id.clone())
            .collect();
        assert!(!missing.is_empty());
        assert_eq!(missing, default);
        assert!(store.missing("no-such-set").is_err());
    }
}
