//! Which model files the app needs for the chosen settings and which of them are missing, so
//! the app can say what to fetch instead of crashing.

use pocket_assets::{AssetError, Store, ids};
use serde::Serialize;

use crate::settings::{FALLBACK_VOICE, Settings};

/// One asset the app cannot run without, and why it is not usable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MissingAsset {
    pub id: String,
    pub detail: String,
}

/// The command a user runs to install the default models.
pub const FETCH_HINT: &str = "pocket assets fetch --set default";

/// The asset ids the chosen settings need on this platform: the language model, the speech
/// recognizer, and the voice with the runtime that plays it (none for the built-in voice).
pub fn required_assets(store: &Store, settings: &Settings) -> Result<Vec<String>, AssetError> {
    // A GGUF file the user picked is not an asset.
    let model = (!settings.model_is_file()).then(|| settings.resolved_model(store));
    let mut need: Vec<String> = model.into_iter().collect();
    need.push(ids::WHISPER_TINY_EN.to_string());
    if settings.voice != FALLBACK_VOICE {
        need.push(settings.voice.clone());
        need.push(ids::ONNXRUNTIME.to_string());
    }
    let manifest = store.manifest();
    let mut out = Vec::new();
    for id in need {
        if manifest.asset(&id)?.for_this_platform() {
            out.push(id);
        }
    }
    Ok(out)
}

/// Which of `wanted` are missing or incomplete (cheap size check).
pub fn missing_assets(store: &Store, wanted: &[String]) -> Result<Vec<MissingAsset>, AssetError> {
    let mut missing = Vec::new();
    for id in wanted {
        match store.require(id) {
            Ok(_) => {}
            Err(AssetError::NotInstalled { detail, .. }) => missing.push(MissingAsset {
                id: id.clone(),
                detail,
            }),
            Err(e) => return Err(e),
        }
    }
    Ok(missing)
}

/// The default-set assets for this platform that are missing or incomplete.
pub fn missing_default_assets(store: &Store) -> Result<Vec<MissingAsset>, AssetError> {
    let wanted: Vec<String> = store
        .manifest()
        .set("default")?
        .into_iter()
        .filter(|a| a.for_this_platform())
        .map(|a| a.id.clone())
        .collect();
    missing_assets(store, &wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_store(dir: &std::path::Path) -> Store {
        Store::new(dir, pocket_assets::Manifest::builtin().expect("manifest"))
    }

    #[test]
    fn an_empty_home_reports_every_default_asset_missing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = empty_store(dir.path());
        let missing = missing_default_assets(&store).expect("check");
        let ids: Vec<_> = missing.iter().map(|m| m.id.as_str()).collect();
        assert!(ids.contains(&"smollm2-135m-instruct-q4_1"), "{ids:?}");
        assert!(ids.contains(&"whisper-tiny.en"), "{ids:?}");
        assert!(ids.contains(&"piper-en_US-joe-medium"), "{ids:?}");
        assert!(missing.iter().all(|m| m.detail.contains("missing")));
    }

    #[test]
    fn the_built_in_voice_needs_no_voice_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = empty_store(dir.path());
        let piper = required_assets(&store, &Settings::default()).expect("ids");
        assert!(piper.contains(&ids::PIPER_JOE.to_string()));
        let builtin = Settings {
            voice: FALLBACK_VOICE.into(),
            ..Settings::default()
        };
        let need = required_assets(&store, &builtin).expect("ids");
        assert_eq!(
            need,
            vec![ids::SMOLLM2.to_string(), ids::WHISPER_TINY_EN.to_string()]
        );
        let missing = missing_assets(&store, &need).expect("check");
        assert_eq!(missing.len(), 2);
    }
}
