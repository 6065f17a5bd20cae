//! User settings that persist across runs: language model, voice, end-of-speech silence,
//! barge-in sensitivity and talk mode, stored as JSON in the app's config folder.

use std::path::Path;
use std::time::Duration;

use pocket_assets::ids;
use pocket_pipeline::EndpointConfig;
use serde::{Deserialize, Serialize};

use crate::error::AppError;

/// File name inside the app config folder.
pub const FILE_NAME: &str = "settings.json";

/// The voice id of the built-in voice (no model file needed).
pub const FALLBACK_VOICE: &str = "fallback";

/// A selectable option, as the settings form lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Choice {
    pub id: &'static str,
    pub label: &'static str,
}

/// The model setting that leaves the choice to the device rule
/// (`pocket_pipeline::engines::choice`): the 1.5B where the device has the memory and the file
/// is installed, SmolLM2 otherwise.
pub const AUTO_MODEL: &str = "auto";

/// Language models the app can run (asset ids, or [`AUTO_MODEL`]), with size and speed as
/// measured (docs/PERFORMANCE.md, "Which model answers").
pub const MODELS: &[Choice] = &[
    Choice {
        id: AUTO_MODEL,
        label: "Automatic (default): Qwen2.5 Coder 1.5B on a device with 6 GB of memory once \
                installed, else SmolLM2 135M",
    },
    Choice {
        id: ids::QWEN25_CODER_15B,
        label: "Qwen2.5 Coder 1.5B Instruct (1.1 GB, the 'large' set; best answers, needs \
                ~1.6 GiB of memory, first words ~0.3 s later)",
    },
    Choice {
        id: ids::SMOLLM2,
        label: "SmolLM2 135M Instruct (98 MB; fastest, but often wrong)",
    },
    Choice {
        id: ids::QWEN25_CODER,
        label: "Qwen2.5 Coder 0.5B Instruct (491 MB, the 'extra' set)",
    },
];

/// Voices the app can speak with (asset ids, or the built-in voice).
pub const VOICES: &[Choice] = &[
    Choice {
        id: ids::PIPER_JOE,
        label: "Joe, US English (Piper)",
    },
    Choice {
        id: FALLBACK_VOICE,
        label: "Built-in voice (robotic, no model file)",
    },
];

/// Allowed end-of-speech silence.
pub const END_SILENCE_MS: (u32, u32) = (200, 2000);

/// How the microphone opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Always listening; speaking over the assistant interrupts it.
    HandsFree,
    /// The microphone is open only while the talk button is held.
    PushToTalk,
}

/// Everything the user can set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Settings {
    /// Asset id of the language model, or the path of a GGUF file.
    pub model: String,
    /// Asset id of the voice, or [`FALLBACK_VOICE`].
    pub voice: String,
    /// Silence after speech that ends the user's turn, in ms.
    pub end_silence_ms: u32,
    /// 0 (needs long speech to interrupt) ..= 100 (the shortest word interrupts).
    pub barge_in_sensitivity: u8,
    pub mode: Mode,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            model: AUTO_MODEL.to_string(),
            voice: ids::PIPER_JOE.to_string(),
            end_silence_ms: 400,
            barge_in_sensitivity: 60,
            mode: Mode::HandsFree,
        }
    }
}

impl Settings {
    /// Checks every field; the error names the field and the allowed values.
    pub fn validate(&self) -> Result<(), AppError> {
        let bad = |m: String| Err(AppError::Settings(m));
        if !MODELS.iter().any(|c| c.id == self.model) && !self.model_is_file() {
            return bad(format!(
                "unknown model {:?}: choose one from the list or give the path of a .gguf file",
                self.model
            ));
        }
        if !VOICES.iter().any(|c| c.id == self.voice) {
            return bad(format!("unknown voice {:?}", self.voice));
        }
        let (lo, hi) = END_SILENCE_MS;
        if !(lo..=hi).contains(&self.end_silence_ms) {
            return bad(format!("end-of-speech silence must be {lo}..={hi} ms"));
        }
        if self.barge_in_sensitivity > 100 {
            return bad("barge-in sensitivity must be 0..=100".into());
        }
        Ok(())
    }

    /// The model is a GGUF file the user picked (an existing `.gguf` path), not an asset id.
    /// The model to run: the asset id or file chosen, or for [`AUTO_MODEL`] the device rule's
    /// choice among the installed models.
    pub fn resolved_model(&self, store: &pocket_assets::Store) -> String {
        if self.model == AUTO_MODEL {
            pocket_pipeline::engines::choice::default_model(store)
                .model
                .to_string()
        } else {
            self.model.clone()
        }
    }

    pub fn model_is_file(&self) -> bool {
        let p = Path::new(&self.model);
        p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gguf"))
            && p.is_file()
    }

    /// Speech needed before the user's voice counts (and interrupts a reply): 600 ms at
    /// sensitivity 0 down to 120 ms at 100.
    pub fn min_speech(&self) -> Duration {
        let s = u64::from(self.barge_in_sensitivity.min(100));
        Duration::from_millis(600 - s * 480 / 100)
    }

    /// The endpointer settings these choices mean.
    pub fn endpoint(&self) -> EndpointConfig {
        EndpointConfig {
            end_silence: Duration::from_millis(u64::from(self.end_silence_ms)),
            min_speech: self.min_speech(),
            ..EndpointConfig::default()
        }
    }

    /// Reads `path`; a missing file gives the defaults, an unreadable or invalid one gives the
    /// defaults and a warning for the UI (the file is left alone until the next save).
    pub fn load(path: &Path) -> (Self, Option<String>) {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Self::default(), None),
            Err(e) => {
                return (
                    Self::default(),
                    Some(format!(
                        "cannot read {}: {e}; using defaults",
                        path.display()
                    )),
                );
            }
        };
        let parsed = serde_json::from_str::<Settings>(&text)
            .map_err(|e| e.to_string())
            .and_then(|s| s.validate().map(|_| s).map_err(|e| e.to_string()));
        match parsed {
            Ok(s) => (s, None),
            Err(e) => (
                Self::default(),
                Some(format!(
                    "settings file {} is invalid ({e}); using defaults",
                    path.display()
                )),
            ),
        }
    }

    /// Validates and writes `path` atomically (temporary file, then rename).
    pub fn save(&self, path: &Path) -> Result<(), AppError> {
        self.validate()?;
        let io =
            |e: std::io::Error| AppError::Settings(format!("cannot save {}: {e}", path.display()));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let text =
            serde_json::to_string_pretty(self).map_err(|e| AppError::Settings(e.to_string()))?;
        // Synced, and the temporary file removed on failure: a full disk keeps the old
        // settings and leaves no stray file.
        pocket_assets::write_atomic(path, (text + "\n").as_bytes()).map_err(|e| {
            AppError::Settings(format!("not saved, the previous settings are kept: {e}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_then_load_round_trips() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nested").join(FILE_NAME);
        let s = Settings {
            voice: FALLBACK_VOICE.into(),
            end_silence_ms: 700,
            barge_in_sensitivity: 10,
            mode: Mode::PushToTalk,
            ..Settings::default()
        };
        s.save(&path).expect("save");
        assert_eq!(Settings::load(&path), (s, None));
        let dir = path.parent().expect("folder");
        assert_eq!(
            std::fs::read_dir(dir).expect("folder").count(),
            1,
            "no temporary left"
        );
    }

    #[test]
    fn a_failed_save_keeps_the_old_settings_and_says_so() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        let old = Settings::default();
        old.save(&path).expect("save");
        // Saving over a folder fails at the last step (the rename), as a full disk fails at
        // the write: either way the previous file stays and no temporary is left.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir_all(blocked.join("inside")).expect("folder");
        let err = old.save(&blocked).expect_err("cannot replace a folder");
        assert!(
            matches!(&err, AppError::Settings(m) if m.contains("previous settings are kept")),
            "{err}"
        );
        assert_eq!(Settings::load(&path), (old, None));
        assert_eq!(std::fs::read_dir(dir.path()).expect("folder").count(), 2);
    }

    #[test]
    fn missing_file_gives_defaults_silently_and_bad_files_warn() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        assert_eq!(Settings::load(&path), (Settings::default(), None));

        std::fs::write(&path, "{ not json").expect("write");
        let (s, warning) = Settings::load(&path);
        assert_eq!(s, Settings::default());
        assert!(warning.expect("warning").contains("invalid"));

        std::fs::write(&path, r#"{"endSilenceMs": 5}"#).expect("write");
        let (_, warning) = Settings::load(&path);
        assert!(warning.expect("warning").contains("200..=2000"));

        std::fs::write(&path, r#"{"colour": "red"}"#).expect("write");
        assert!(
            Settings::load(&path).1.is_some(),
            "unknown fields are refused"
        );
    }

    #[test]
    fn a_gguf_file_path_is_a_model_and_a_missing_one_is_not() {
        let dir = tempfile::tempdir().expect("dir");
        let gguf = dir.path().join("mine.gguf");
        std::fs::write(&gguf, b"GGUF").expect("write");
        let picked = Settings {
            model: gguf.display().to_string(),
            ..Settings::default()
        };
        assert!(picked.model_is_file());
        picked.validate().expect("an existing .gguf is a model");
        let gone = Settings {
            model: dir.path().join("gone.gguf").display().to_string(),
            ..Settings::default()
        };
        assert!(gone.validate().is_err());
        let not_gguf = Settings {
            model: dir.path().display().to_string(),
            ..Settings::default()
        };
        assert!(not_gguf.validate().is_err());
    }

    #[test]
    fn validation_names_the_bad_field() {
        let s = Settings {
            model: "gpt-9".into(),
            ..Settings::default()
        };
        assert!(
            s.validate()
                .expect_err("model")
                .to_string()
                .contains("gpt-9")
        );
        let s = Settings {
            barge_in_sensitivity: 101,
            ..Settings::default()
        };
        assert!(s.validate().is_err());
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(
            s.save(&dir.path().join(FILE_NAME)).is_err(),
            "never saves bad values"
        );
    }

    #[test]
    fn sensitivity_maps_to_the_speech_needed_to_interrupt() {
        let at = |v| {
            Settings {
                barge_in_sensitivity: v,
                ..Settings::default()
            }
            .endpoint()
        };
        assert_eq!(at(0).min_speech, Duration::from_millis(600));
        assert_eq!(at(100).min_speech, Duration::from_millis(120));
        assert_eq!(at(50).min_speech, Duration::from_millis(360));
        assert_eq!(at(50).end_silence, Duration::from_millis(400));
    }
}
