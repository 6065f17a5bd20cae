//! Whisper's byte-level BPE vocabulary (`vocabulary.txt`, one token per line): decoding token
//! ids to text, and the ids of the special tokens the decoder needs.

use std::collections::HashMap;
use std::path::Path;

use crate::error::AsrError;

/// Ids of the special tokens, looked up by name (they differ between English-only and
/// multilingual models).
#[derive(Clone, Debug)]
pub struct Specials {
    pub eot: u32,
    pub sot: u32,
    pub transcribe: u32,
    pub translate: u32,
    pub no_speech: u32,
    pub no_timestamps: u32,
    /// `<|0.00|>`: this id and every id after it are timestamps.
    pub timestamp_begin: u32,
}

/// The vocabulary: token strings and the GPT-2 byte decoder.
#[derive(Debug)]
pub struct Vocab {
    tokens: Vec<Vec<u8>>,
    index: HashMap<String, u32>,
    pub specials: Specials,
}

/// GPT-2's reversible map from bytes to printable characters (index: the byte).
fn byte_encoder() -> Vec<char> {
    let mut out = vec!['\0'; 256];
    for (c, b) in byte_decoder() {
        out[b as usize] = c;
    }
    out
}

/// GPT-2's reversible map from bytes to printable characters, inverted.
fn byte_decoder() -> HashMap<char, u8> {
    let mut printable: Vec<u32> = (u32::from(b'!')..=u32::from(b'~')).collect();
    printable.extend(0xA1..=0xAC);
    printable.extend(0xAE..=0xFF);
    let mut map = HashMap::new();
    let mut extra = 0u32;
    for b in 0u32..256 {
        let c = if printable.contains(&b) {
            b
        } else {
            extra += 1;
            255 + extra
        };
        if let Some(ch) = char::from_u32(c) {
            map.insert(ch, b as u8);
        }
    }
    map
}

impl Vocab {
    /// Reads `vocabulary.txt` and finds the special tokens.
    pub fn load(path: &Path) -> Result<Self, AsrError> {
        let text = std::fs::read_to_string(path).map_err(|source| AsrError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text).map_err(|detail| AsrError::BadModel {
            path: path.to_path_buf(),
            detail,
        })
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let dec = byte_decoder();
        let mut tokens = Vec::new();
        let mut index = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let id = u32::try_from(i).map_err(|_| "vocabulary too large".to_string())?;
            index.insert(line.to_string(), id);
            let bytes = if line.starts_with("<|") && line.ends_with("|>") {
                Vec::new() // special tokens print nothing
            } else {
                line.chars()
                    .map(|c| dec.get(&c).copied().unwrap_or(b'?'))
                    .collect()
            };
            tokens.push(bytes);
        }
        let find = |name: &str| {
            index
                .get(name)
                .copied()
                .ok_or_else(|| format!("vocabulary lacks the special token {name}"))
        };
        let no_speech = find("<|nospeech|>").or_else(|_| find("<|nocaptions|>"))?;
        let specials = Specials {
            eot: find("<|endoftext|>")?,
            sot: find("<|startoftranscript|>")?,
            transcribe: find("<|transcribe|>")?,
            translate: find("<|translate|>")?,
            no_speech,
            no_timestamps: find("<|notimestamps|>")?,
            timestamp_begin: find("<|0.00|>")?,
        };
        Ok(Self {
            tokens,
            index,
            specials,
        })
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Multilingual models have the 51,865-token vocabulary (English-only ones 51,864).
    pub fn is_multilingual(&self) -> bool {
        self.tokens.len() >= 51_865
    }

    /// Id of a token given by its exact string (e.g. `<|de|>`).
    pub fn id(&self, token: &str) -> Option<u32> {
        self.index.get(token).copied()
    }

    /// Token ids for `text`, by longest match against the vocabulary (not the BPE merges: a
    /// valid spelling of the text the decoder reads well, which is what a prompt needs).
    /// Bytes no token spells are skipped.
    pub fn encode_longest(&self, text: &str) -> Vec<u32> {
        let enc = byte_encoder();
        let chars: Vec<char> = text.bytes().map(|b| enc[b as usize]).collect();
        let mut ids = Vec::new();
        let mut at = 0;
        while at < chars.len() {
            let mut found = None;
            for end in (at + 1..=chars.len().min(at + 32)).rev() {
                let piece: String = chars[at..end].iter().collect();
                if let Some(&id) = self.index.get(&piece).filter(|&&id| id < self.specials.eot) {
                    found = Some((id, end));
                    break;
                }
            }
            match found {
                Some((id, end)) => {
                    ids.push(id);
                    at = end;
                }
                None => at += 1,
            }
        }
        ids
    }

    /// The bytes of one (non-special) token.
    pub fn token_bytes(&self, id: u32) -> Option<&[u8]> {
        if id >= self.specials.eot {
            return None;
        }
        self.tokens.get(id as usize).map(|t| t.as_slice())
    }

    /// Text of a sequence of ids (special tokens print nothing; invalid UTF-8 is replaced).
    pub fn decode(&self, ids: &[u32]) -> String {
        let mut bytes = Vec::new();
        for &id in ids {
            if id >= self.specials.eot {
                continue;
            }
            if let Some(t) = self.tokens.get(id as usize) {
                bytes.extend_from_slice(t);
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_byte_level_tokens() {
        let text = "Hello\nĠworld\nâĢĻ\n<|endoftext|>\n<|startoftranscript|>\n<|transcribe|>\n\
                    <|translate|>\n<|nocaptions|>\n<|notimestamps|>\n<|0.00|>\n";
        let v = Vocab::parse(text).expect("vocab");
        assert_eq!(v.decode(&[0, 1, 3, 2]), "Hello world\u{2019}");
        assert_eq!(v.specials.no_speech, 7);
        assert_eq!(v.specials.timestamp_begin, 9);
        assert!(Vocab::parse("a\nb\n").is_err());
    }
}
