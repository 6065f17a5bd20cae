//! Pocket Voice app shell: what the Tauri app needs before its UI exists (issue 7) — a check of
//! which default models are installed, so the app can say what is missing instead of crashing.

use pocket_assets::{AssetError, Store};

/// One default asset that the app cannot run without, and why it is not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingAsset {
    pub id: String,
    pub detail: String,
}

/// The default-set assets for this platform that are missing or incomplete (cheap size check).
pub fn missing_default_assets(store: &Store) -> Result<Vec<MissingAsset>, AssetError> {
    let mut missing = Vec::new();
    for asset in store.manifest().set("default")? {
        if !asset.for_this_platform() {
            continue;
        }
        match store.require(&asset.id) {
            Ok(_) => {}
            Err(AssetError::NotInstalled { detail, .. }) => missing.push(MissingAsset {
                id: asset.id.clone(),
                detail,
            }),
            Err(e) => return Err(e),
        }
    }
    Ok(missing)
}

/// The command a user runs to install what is missing.
pub const FETCH_HINT: &str = "pocket assets fetch --set default";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_home_reports_every_default_asset_missing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::new(
            dir.path(),
            pocket_assets::Manifest::builtin().expect("manifest"),
        );
        let missing = missing_default_assets(&store).expect("check");
        let ids: Vec<_> = missing.iter().map(|m| m.id.as_str()).collect();
        assert!(ids.contains(&"smollm2-135m-instruct-q4_1"), "{ids:?}");
        assert!(ids.contains(&"whisper-tiny.en"), "{ids:?}");
        assert!(ids.contains(&"piper-en_US-joe-medium"), "{ids:?}");
        assert!(missing.iter().all(|m| m.detail.contains("missing")));
    }
}
