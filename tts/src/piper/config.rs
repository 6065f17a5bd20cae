//! A Piper voice's `.onnx.json`: sample rate, espeak voice, inference scales, phoneme ids.

use crate::error::TtsError;
use std::collections::HashMap;
use std::path::Path;

/// Beginning of utterance, end of utterance, and the pad interleaved between phonemes.
pub const BOS: char = '^';
pub const EOS: char = '$';
pub const PAD: char = '_';

/// Most ids one phoneme maps to (real voices map each to one id; the cap bounds the id
/// sequence, and so the model input, at this many ids per input character).
pub const MAX_IDS_PER_PHONEME: usize = 16;
/// Largest accepted `noise_scale` / `noise_w` (voices use 0.3 to 1; a negative, infinite or
/// huge scale only produces noise).
pub const MAX_NOISE: f32 = 10.0;

/// The parts of a Piper voice config that synthesis needs, validated once at load.
#[derive(Debug, Clone)]
pub struct PiperConfig {
    pub sample_rate: u32,
    /// espeak-ng voice name, e.g. `en-us`.
    pub espeak_voice: String,
    pub noise_scale: f32,
    pub length_scale: f32,
    pub noise_w: f32,
    pub num_speakers: u32,
    /// One phoneme (a Unicode code point) to its id(s).
    pub phoneme_id_map: HashMap<char, Vec<i64>>,
}

#[derive(serde::Deserialize)]
struct RawConfig {
    audio: RawAudio,
    #[serde(default)]
    espeak: Option<RawEspeak>,
    #[serde(default)]
    inference: Option<RawInference>,
    #[serde(default)]
    num_speakers: Option<u32>,
    #[serde(default)]
    phoneme_type: Option<String>,
    phoneme_id_map: HashMap<String, Vec<i64>>,
}

#[derive(serde::Deserialize)]
struct RawAudio {
    sample_rate: u32,
}

#[derive(serde::Deserialize)]
struct RawEspeak {
    voice: String,
}

#[derive(serde::Deserialize)]
struct RawInference {
    noise_scale: Option<f32>,
    length_scale: Option<f32>,
    noise_w: Option<f32>,
}

impl PiperConfig {
    /// Reads and validates a voice config file.
    pub fn load(path: &Path) -> Result<Self, TtsError> {
        let text = std::fs::read_to_string(path).map_err(|source| TtsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text).map_err(|detail| TtsError::BadConfig {
            path: path.to_path_buf(),
            detail,
        })
    }

    /// Parses and validates a voice config's JSON text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let raw: RawConfig = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if let Some(t) = raw.phoneme_type.as_deref()
            && t != "espeak"
        {
            return Err(format!("phoneme_type {t:?} is not supported (only espeak)"));
        }
        if !(8_000..=96_000).contains(&raw.audio.sample_rate) {
            return Err(format!(
                "sample rate {} out of range",
                raw.audio.sample_rate
            ));
        }
        let mut phoneme_id_map = HashMap::with_capacity(raw.phoneme_id_map.len());
        for (key, ids) in raw.phoneme_id_map {
            let mut chars = key.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if !ids.is_empty() => {
                    if ids.len() > MAX_IDS_PER_PHONEME || ids.iter().any(|&id| id < 0) {
                        return Err(format!(
                            "phoneme_id_map {key:?}: {ids:?} is not 1..={MAX_IDS_PER_PHONEME} non-negative ids"
                        ));
                    }
                    phoneme_id_map.insert(c, ids);
                }
                _ => return Err(format!("phoneme_id_map key {key:?} is not one code point")),
            }
        }
        for needed in [BOS, EOS, PAD] {
            if !phoneme_id_map.contains_key(&needed) {
                return Err(format!("phoneme_id_map lacks {needed:?}"));
            }
        }
        let inference = raw.inference.unwrap_or(RawInference {
            noise_scale: None,
            length_scale: None,
            noise_w: None,
        });
        let length_scale = inference.length_scale.unwrap_or(1.0);
        if !(length_scale > 0.0 && length_scale < 10.0) {
            return Err(format!("length_scale {length_scale} out of range"));
        }
        let noise_scale = inference.noise_scale.unwrap_or(0.667);
        let noise_w = inference.noise_w.unwrap_or(0.8);
        for (name, v) in [("noise_scale", noise_scale), ("noise_w", noise_w)] {
            if !(0.0..=MAX_NOISE).contains(&v) {
                return Err(format!("{name} {v} out of range (0..={MAX_NOISE})"));
            }
        }
        Ok(PiperConfig {
            sample_rate: raw.audio.sample_rate,
            espeak_voice: raw
                .espeak
                .map(|e| e.voice)
                .unwrap_or_else(|| "en-us".into()),
            noise_scale,
            length_scale,
            noise_w,
            num_speakers: raw.num_speakers.unwrap_or(1),
            phoneme_id_map,
        })
    }

    /// Appends the ids of a phoneme string the way Piper does: `^ _ p1 _ p2 _ … pn _ $`.
    /// Phonemes missing from the map are skipped. `out` is cleared first.
    pub fn phonemes_to_ids(&self, phonemes: &str, out: &mut Vec<i64>) {
        out.clear();
        let pad = &self.phoneme_id_map[&PAD];
        out.extend_from_slice(&self.phoneme_id_map[&BOS]);
        out.extend_from_slice(pad);
        for c in phonemes.chars() {
            if let Some(ids) = self.phoneme_id_map.get(&c) {
                out.extend_from_slice(ids);
                out.extend_from_slice(pad);
            }
        }
        out.extend_from_slice(&self.phoneme_id_map[&EOS]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINI: &str = r#"{"audio":{"sample_rate":22050},"espeak":{"voice":"en-us"},
        "inference":{"noise_scale":0.5,"length_scale":1.1,"noise_w":0.7},
        "phoneme_type":"espeak","num_speakers":1,
        "phoneme_id_map":{"_":[0],"^":[1],"$":[2]," ":[3],"a":[14],"b":[15]}}"#;

    #[test]
    fn parses_and_interleaves_pad_like_piper() {
        let c = PiperConfig::parse(MINI).expect("parse");
        assert_eq!(c.sample_rate, 22050);
        assert_eq!(c.espeak_voice, "en-us");
        assert!((c.length_scale - 1.1).abs() < 1e-6);
        let mut ids = Vec::new();
        c.phonemes_to_ids("ab a", &mut ids);
        assert_eq!(ids, vec![1, 0, 14, 0, 15, 0, 3, 0, 14, 0, 2]);
        // Unknown phonemes are skipped, never an error.
        c.phonemes_to_ids("aZ", &mut ids);
        assert_eq!(ids, vec![1, 0, 14, 0, 2]);
    }

    #[test]
    fn rejects_bad_configs() {
        assert!(PiperConfig::parse("{}").is_err());
        assert!(PiperConfig::parse("not json").is_err());
        let no_pad = MINI.replace(r#""_":[0],"#, "");
        assert!(
            PiperConfig::parse(&no_pad)
                .expect_err("no pad")
                .contains("lacks")
        );
        let bad_rate = MINI.replace("22050", "0");
        assert!(PiperConfig::parse(&bad_rate).is_err());
        let multi = MINI.replace(r#""b":[15]"#, r#""bb":[15]"#);
        assert!(PiperConfig::parse(&multi).is_err());
        // Found by the piper_json fuzz target: negative or infinite noise scales were
        // accepted (1e39 is an f32 infinity).
        for bad in ["-1", "1e39", "11"] {
            let noisy = MINI.replace("0.7", bad);
            assert!(
                PiperConfig::parse(&noisy)
                    .expect_err(bad)
                    .contains("noise_w"),
                "{bad}"
            );
        }
        let negative = MINI.replace("[14]", "[-14]");
        assert!(PiperConfig::parse(&negative).is_err());
        let long = MINI.replace("[14]", &format!("{:?}", vec![1; 17]));
        assert!(PiperConfig::parse(&long).is_err());
    }
}
