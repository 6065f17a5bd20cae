//! Byte-level BPE tokenizer built from a GGUF vocabulary, with token ids identical to
//! llama.cpp's: special tokens are split out first (longest first), the rest is cut into
//! words by the model's pre-tokenizer (`smollm`, `qwen2`, `llama-bpe`, `gpt-2`, ...), each
//! word's bytes are mapped to GPT-2 byte characters and merged by rank.
//!
//! Decoding maps tokens back to bytes; [`StreamDecoder`] turns a token stream into text
//! pieces that are always whole UTF-8 characters.

mod bpe;
mod build;
mod decode;
mod pretokenize;
mod speakable;
mod unicode;
mod unicode_flags;
mod vocab;

#[cfg(test)]
mod tests;

use bpe::{BpeScratch, merge_word};
pub use build::MAX_TOKEN_BYTES;
pub use decode::StreamDecoder;
pub use pretokenize::PreTokenizer;
use unicode::BYTE_TO_CHAR;
use vocab::{Arena, Merges, TextIndex, attr};

use crate::LlmError;
use crate::gguf::GgufFile;

/// Ids of the special tokens a model declares (or llama.cpp infers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpecialIds {
    pub bos: Option<u32>,
    pub eos: Option<u32>,
    /// End of turn (`<|im_end|>` in ChatML vocabularies).
    pub eot: Option<u32>,
    pub unk: Option<u32>,
    pub pad: Option<u32>,
}

/// A byte-level BPE vocabulary. Immutable after construction; share it freely.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    texts: Arena,
    index: TextIndex,
    attrs: Vec<u8>,
    pieces: Arena,
    merges: Merges,
    byte_tokens: [u32; 256],
    pre: PreTokenizer,
    pre_name: String,
    ignore_merges: bool,
    /// Control, user-defined and unknown tokens, longest text first.
    specials: Vec<u32>,
    special: SpecialIds,
    eog: Vec<u32>,
    add_bos: bool,
    add_eos: bool,
}

enum Fragment {
    Text(usize, usize),
    Token(u32),
}

impl Tokenizer {
    /// The tokenizer of a GGUF model.
    pub fn from_gguf(file: &GgufFile) -> Result<Self, LlmError> {
        Self::from_metadata(file.metadata())
    }

    /// Number of tokens in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.texts.len()
    }

    /// Special token ids.
    pub fn special_ids(&self) -> SpecialIds {
        self.special
    }

    /// BOS token, if any.
    pub fn bos(&self) -> Option<u32> {
        self.special.bos
    }

    /// EOS token, if any.
    pub fn eos(&self) -> Option<u32> {
        self.special.eos
    }

    /// Whether `encode(.., add_special = true)` prepends BOS.
    pub fn add_bos(&self) -> bool {
        self.add_bos
    }

    /// True if `id` ends a generation (EOS, end of turn such as `<|im_end|>`, ...).
    pub fn is_eog(&self, id: u32) -> bool {
        self.eog.binary_search(&id).is_ok()
    }

    /// All end-of-generation ids, sorted.
    pub fn eog_ids(&self) -> &[u32] {
        &self.eog
    }

    /// True for control tokens (`<|im_start|>`, ...), which decode to nothing by default.
    pub fn is_control(&self, id: u32) -> bool {
        self.attrs
            .get(id as usize)
            .is_some_and(|a| a & (attr::CONTROL | attr::UNKNOWN) != 0)
    }

    /// The pre-tokenizer in use and its GGUF name.
    pub fn pre_tokenizer(&self) -> (PreTokenizer, &str) {
        (self.pre, &self.pre_name)
    }

    /// The vocabulary text of `id` (byte-level characters for normal tokens).
    pub fn token_text(&self, id: u32) -> Option<&str> {
        let i = id as usize;
        (i < self.texts.len()).then(|| std::str::from_utf8(self.texts.get(i)).unwrap_or_default())
    }

    /// The id of the token whose vocabulary text is `text` exactly.
    pub fn token_id(&self, text: &str) -> Option<u32> {
        self.index.find(&self.texts, text.as_bytes())
    }

    /// Token ids of `text`, recognizing special tokens written in it (`<|im_start|>`), with
    /// BOS/EOS added as the model asks when `add_special`. Same ids as `llama-tokenize`.
    pub fn encode(&self, text: &str, add_special: bool) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len() / 3 + 2);
        self.encode_into(text, add_special, true, &mut out);
        out
    }

    /// Appends the ids of `text` to `out`. With `parse_special` false, control tokens in the
    /// text are tokenized as plain text (user-defined tokens are still matched, as in
    /// llama.cpp).
    pub fn encode_into(
        &self,
        text: &str,
        add_special: bool,
        parse_special: bool,
        out: &mut Vec<u32>,
    ) {
        if add_special && self.add_bos {
            out.extend(self.special.bos);
        }
        let mut cps = Vec::new();
        let mut words = Vec::new();
        let mut scratch = BpeScratch::default();
        let mut encoded = Vec::new();
        for fragment in self.partition(text, parse_special) {
            let (start, end) = match fragment {
                Fragment::Token(id) => {
                    out.push(id);
                    continue;
                }
                Fragment::Text(start, end) => (start, end),
            };
            let piece = &text[start..end];
            words.clear();
            self.pre.split(piece, &mut cps, &mut words);
            for &(a, b) in &words {
                let word = &piece.as_bytes()[a..b];
                if self.ignore_merges {
                    encoded.clear();
                    let mut buf = [0u8; 4];
                    for &byte in word {
                        encoded.extend_from_slice(
                            BYTE_TO_CHAR[byte as usize].encode_utf8(&mut buf).as_bytes(),
                        );
                    }
                    if let Some(id) = self.index.find(&self.texts, &encoded) {
                        out.push(id);
                        continue;
                    }
                }
                let ids = word.iter().map(|&byte| self.byte_tokens[byte as usize]);
                merge_word(&self.merges, ids, &mut scratch, out);
            }
        }
        if add_special && self.add_eos {
            out.extend(self.special.eos);
        }
    }

    /// Splits `text` around special tokens: for each special token, longest first, every
    /// occurrence in the remaining text fragments becomes a token (llama.cpp's
    /// `tokenizer_st_partition`).
    fn partition(&self, text: &str, parse_special: bool) -> Vec<Fragment> {
        let mut frags = Vec::new();
        if text.is_empty() {
            return frags;
        }
        frags.push(Fragment::Text(0, text.len()));
        let mut next = Vec::new();
        for &id in &self.specials {
            let a = self.attrs[id as usize];
            if !parse_special && a & (attr::CONTROL | attr::UNKNOWN) != 0 {
                continue;
            }
            let Some(needle) = self
                .token_text(id)
                .filter(|t| !t.is_empty() && text.contains(*t))
            else {
                continue;
            };
            next.clear();
            for f in frags.drain(..) {
                let Fragment::Text(mut start, end) = f else {
                    next.push(f);
                    continue;
                };
                while let Some(at) = text[start..end].find(needle) {
                    if at > 0 {
                        next.push(Fragment::Text(start, start + at));
                    }
                    next.push(Fragment::Token(id));
                    start += at + needle.len();
                }
                if start < end {
                    next.push(Fragment::Text(start, end));
                }
            }
            std::mem::swap(&mut frags, &mut next);
        }
        frags
    }

    /// The bytes token `id` stands for. Control and unknown tokens give their text only
    /// when `special` is true, nothing otherwise (like llama.cpp's `token_to_piece`).
    pub fn piece(&self, id: u32, special: bool) -> Result<&[u8], LlmError> {
        let i = id as usize;
        if i >= self.texts.len() {
            return Err(LlmError::InvalidToken {
                id,
                vocab_size: self.texts.len(),
            });
        }
        if !special && self.attrs[i] & (attr::CONTROL | attr::UNKNOWN) != 0 {
            return Ok(&[]);
        }
        Ok(self.pieces.get(i))
    }

    /// The tokens that are a number alone: ASCII digits, after at most one leading space
    /// (Qwen and SmolLM2 write every digit as its own token; other vocabularies hold longer
    /// runs). Ascending.
    pub fn number_ids(&self) -> Vec<u32> {
        (0..self.texts.len())
            .filter(|&i| self.attrs[i] & (attr::CONTROL | attr::UNKNOWN) == 0)
            .filter(|&i| {
                let p = self.pieces.get(i);
                let digits = p.strip_prefix(b" ").unwrap_or(p);
                !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
            })
            .map(|i| i as u32)
            .collect()
    }

    /// Text of `ids` (control tokens omitted), with invalid UTF-8 replaced by U+FFFD.
    pub fn decode(&self, ids: &[u32]) -> Result<String, LlmError> {
        self.decode_with(ids, false)
    }

    /// Text of `ids`; `special` renders control tokens as their text.
    pub fn decode_with(&self, ids: &[u32], special: bool) -> Result<String, LlmError> {
        let mut bytes = Vec::with_capacity(ids.len() * 4);
        for &id in ids {
            bytes.extend_from_slice(self.piece(id, special)?);
        }
        Ok(String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    /// Number of BPE merges loaded.
    pub fn n_merges(&self) -> usize {
        self.merges.len()
    }
}
