//! One VoiceBench test item as read from the published data, and its stable key.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::audio::{DecodedAudio, decode_audio_bytes};
use crate::error::Result;

/// Where a sample sits in the published data: `subset/split/index`, stable across runs and shards.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SampleKey {
    pub subset: String,
    pub split: String,
    /// Row number within the split, in file order (0-based).
    pub index: u64,
}

impl SampleKey {
    /// The key of row `index` of `subset`/`split`.
    pub(crate) fn new(subset: &str, split: &str, index: u64) -> SampleKey {
        SampleKey {
            subset: subset.to_string(),
            split: split.to_string(),
            index,
        }
    }
}

impl std::fmt::Display for SampleKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.subset, self.split, self.index)
    }
}

/// Arguments of one IFEval instruction. The dataset stores one struct per instruction with every
/// argument of every checker as a nullable field; unset ones stay `None` (and serialize as
/// `null`, as Hugging Face's `json.dumps(row)` does, so VoiceBench's evaluator reads them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InstructionKwargs {
    pub num_placeholders: Option<i64>,
    pub capital_relation: Option<String>,
    pub capital_frequency: Option<i64>,
    pub keywords: Option<Vec<String>>,
    pub relation: Option<String>,
    pub num_words: Option<i64>,
    pub let_relation: Option<String>,
    pub letter: Option<String>,
    pub let_frequency: Option<i64>,
    pub num_highlights: Option<i64>,
    pub prompt_to_repeat: Option<String>,
    pub num_bullets: Option<i64>,
    pub section_spliter: Option<String>,
    pub num_sections: Option<i64>,
    pub num_paragraphs: Option<i64>,
    pub language: Option<String>,
    pub end_phrase: Option<String>,
    pub forbidden_words: Option<Vec<String>>,
    pub keyword: Option<String>,
    pub frequency: Option<i64>,
    pub num_sentences: Option<i64>,
    pub postscript_marker: Option<String>,
    pub first_word: Option<String>,
    pub nth_paragraph: Option<i64>,
}

/// The integer-valued argument names, in the writer's column order.
pub const KWARGS_INT_FIELDS: &[&str] = &[
    "num_placeholders",
    "capital_frequency",
    "num_words",
    "let_frequency",
    "num_highlights",
    "num_bullets",
    "num_sections",
    "num_paragraphs",
    "frequency",
    "num_sentences",
    "nth_paragraph",
];

/// The audio cell as stored: the encoded file (WAV or FLAC) and its original name.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioClip {
    pub bytes: Vec<u8>,
    pub path: Option<String>,
}

impl AudioClip {
    /// Decode to mono f32 at the file's own rate (downmixing by averaging channels).
    pub fn decode(&self) -> Result<DecodedAudio> {
        let what = self.path.as_deref().unwrap_or("<unnamed audio>");
        decode_audio_bytes(&self.bytes, what)
    }
}

/// One test item. Fields other than `prompt` exist only in the subsets that have them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sample {
    pub sample_key: SampleKey,
    pub prompt: String,
    /// Gold answer: QA text, MCQ letter, or bbh `yes`/`no`/`(A)`/`(B)`.
    pub reference: Option<String>,
    /// bbh task name (e.g. `sports_understanding_12`).
    pub id: Option<String>,
    /// ifeval's original IFEval `key`.
    pub key: Option<i64>,
    pub instruction_id_list: Option<Vec<String>>,
    pub kwargs: Option<Vec<InstructionKwargs>>,
    /// Any other non-audio column (kept so output lines carry every field VoiceBench's would).
    pub extra: BTreeMap<String, serde_json::Value>,
    pub audio: Option<AudioClip>,
}

impl Default for SampleKey {
    fn default() -> Self {
        SampleKey::new("", "test", 0)
    }
}

impl Sample {
    /// The decoded audio, if the sample has any.
    pub fn decode_audio(&self) -> Result<Option<DecodedAudio>> {
        self.audio.as_ref().map(AudioClip::decode).transpose()
    }
}
