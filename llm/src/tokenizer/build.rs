//! Building a [`Tokenizer`] from GGUF metadata (`tokenizer.ggml.*`), mirroring how
//! llama.cpp's `llama_vocab::load` reads a byte-level BPE vocabulary.

use super::pretokenize::PreTokenizer;
use super::unicode::{BYTE_TO_CHAR, char_to_byte};
use super::vocab::{Arena, ArenaFull, Merges, NO_TOKEN, TextIndex, attr};
use super::{SpecialIds, Tokenizer};
use crate::LlmError;
use crate::gguf::Metadata;

/// Texts that end a generation (llama.cpp's EOG name list, the entries that occur in
/// ChatML-family vocabularies and a few others).
const EOG_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|eom_id|>",
    "<EOT>",
    "<|end_of_text|>",
    "<end_of_utterance>",
];
/// Texts llama.cpp takes as the end-of-turn token when the file names none.
const EOT_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<EOT>",
    "<end_of_utterance>",
];
/// Fill-in-the-middle tokens that also end a generation.
const FIM_EOG_TEXTS: &[&str] = &[
    "<|fim_pad|>",
    "<|fim_repo|>",
    "<|repo_name|>",
    "<|file_sep|>",
];

/// Longest token text accepted, in bytes: real byte-level BPE vocabularies stay far below
/// (their longest tokens are runs of a few hundred bytes at most); the cap bounds the work
/// and memory per token of a hostile file.
pub const MAX_TOKEN_BYTES: usize = 1024;

/// Most token text in all, in bytes (real vocabularies hold 1 to 3 MiB).
pub const MAX_VOCAB_BYTES: usize = 64 << 20;

fn invalid(reason: impl Into<String>) -> LlmError {
    LlmError::InvalidVocab {
        reason: reason.into(),
    }
}

impl Tokenizer {
    /// Builds the tokenizer of a GGUF model from its metadata.
    pub fn from_metadata(meta: &Metadata) -> Result<Self, LlmError> {
        let model: &str = meta.get("tokenizer.ggml.model")?;
        if model != "gpt2" {
            return Err(LlmError::UnsupportedTokenizer {
                reason: format!(
                    "tokenizer model `{model}`: only byte-level BPE (`gpt2`) is supported"
                ),
            });
        }
        let pre_name: &str = meta.get_opt("tokenizer.ggml.pre")?.unwrap_or("default");
        let (pre, ignore_merges, default_add_bos) =
            PreTokenizer::from_name(pre_name).ok_or_else(|| LlmError::UnsupportedTokenizer {
                reason: format!("pre-tokenizer `{pre_name}` is not implemented"),
            })?;

        let tokens: &[String] = meta.get("tokenizer.ggml.tokens")?;
        if tokens.is_empty() || tokens.len() >= NO_TOKEN as usize {
            return Err(invalid(format!("{} tokens", tokens.len())));
        }
        let types: Option<&[i32]> = meta.get_opt("tokenizer.ggml.token_type")?;
        if types.is_some_and(|t| t.len() < tokens.len()) {
            return Err(invalid("fewer token types than tokens"));
        }

        if let Some((i, t)) = tokens
            .iter()
            .enumerate()
            .find(|(_, t)| t.len() > MAX_TOKEN_BYTES)
        {
            return Err(invalid(format!(
                "token {i} is {} bytes long; at most {MAX_TOKEN_BYTES} are allowed",
                t.len()
            )));
        }
        let total: usize = tokens.iter().map(String::len).sum();
        if total > MAX_VOCAB_BYTES {
            return Err(invalid(format!(
                "token texts take {total} bytes; at most {MAX_VOCAB_BYTES} are allowed"
            )));
        }
        // Empty texts become `[EMPTY_<id>]` (at most 21 bytes each).
        let limit = total.saturating_add(tokens.len().saturating_mul(24));
        let mut texts = Arena::with_capacity(tokens.len(), total + 64, limit);
        let full = |_: ArenaFull| invalid("token texts are too large");
        for (i, t) in tokens.iter().enumerate() {
            if t.is_empty() {
                texts
                    .push(format!("[EMPTY_{i}]").as_bytes())
                    .map_err(full)?;
            } else {
                texts.push(t.as_bytes()).map_err(full)?;
            }
        }
        let index = TextIndex::build(&texts);
        let mut attrs: Vec<u8> = match types {
            Some(types) => types[..tokens.len()]
                .iter()
                .map(|&t| attr::from_token_type(t))
                .collect(),
            None => vec![attr::NORMAL; tokens.len()],
        };

        let merges = read_merges(meta, &texts, &index)?;
        let find = |s: &str| index.find(&texts, s.as_bytes());

        let n = tokens.len() as u32;
        let id_key = |key: &str, default: Option<u32>| -> Result<Option<u32>, LlmError> {
            let default = default.filter(|&d| d < n);
            Ok(match meta.get_opt::<u32>(key)? {
                Some(id) if id < n => Some(id),
                _ => default,
            })
        };
        let mut special = SpecialIds {
            bos: id_key("tokenizer.ggml.bos_token_id", Some(11))?,
            eos: id_key("tokenizer.ggml.eos_token_id", Some(11))?,
            eot: id_key("tokenizer.ggml.eot_token_id", None)?,
            unk: id_key("tokenizer.ggml.unknown_token_id", None)?,
            pad: id_key("tokenizer.ggml.padding_token_id", None)?,
        };
        if special.eot.is_none() {
            special.eot = EOT_TEXTS.iter().find_map(|t| find(t));
        }
        let eom = id_key("tokenizer.ggml.eom_token_id", None)?.or_else(|| find("<|eom_id|>"));

        // End-of-generation set, and llama.cpp's fix-up of control-looking tokens.
        let mut eog: Vec<u32> = EOG_TEXTS
            .iter()
            .chain(FIM_EOG_TEXTS)
            .filter_map(|t| find(t))
            .collect();
        let named = EOT_TEXTS
            .iter()
            .chain(["<|eom_id|>"].iter())
            .filter_map(|t| find(t));
        for id in eog.iter().copied().chain(named) {
            attrs[id as usize] |= attr::CONTROL;
        }
        eog.extend([special.eos, special.eot, eom].into_iter().flatten());
        eog.sort_unstable();
        eog.dedup();

        let add_bos = meta
            .get_opt::<bool>("tokenizer.ggml.add_bos_token")?
            .unwrap_or(default_add_bos);
        let add_eos = meta
            .get_opt::<bool>("tokenizer.ggml.add_eos_token")?
            .unwrap_or(false);
        if add_bos && special.bos.is_none() {
            return Err(invalid("add_bos_token is set but there is no BOS token"));
        }
        if add_eos && special.eos.is_none() {
            return Err(invalid("add_eos_token is set but there is no EOS token"));
        }

        let mut specials: Vec<u32> = (0..n)
            .filter(|&id| {
                attrs[id as usize] & (attr::CONTROL | attr::USER_DEFINED | attr::UNKNOWN) != 0
            })
            .collect();
        specials.sort_by_key(|&id| std::cmp::Reverse(texts.get(id as usize).len()));

        let mut byte_tokens = [NO_TOKEN; 256];
        let mut buf = [0u8; 4];
        for (b, slot) in byte_tokens.iter_mut().enumerate() {
            *slot = index
                .find(&texts, BYTE_TO_CHAR[b].encode_utf8(&mut buf).as_bytes())
                .unwrap_or(NO_TOKEN);
        }
        let pieces = decoded_pieces(&texts, &attrs)?;

        Ok(Tokenizer {
            texts,
            index,
            attrs,
            pieces,
            merges,
            byte_tokens,
            pre,
            pre_name: pre_name.to_string(),
            ignore_merges,
            specials,
            special,
            eog,
            add_bos,
            add_eos,
        })
    }
}

fn read_merges(meta: &Metadata, texts: &Arena, index: &TextIndex) -> Result<Merges, LlmError> {
    const BATCH: usize = 16;
    let list: &[String] = meta.get("tokenizer.ggml.merges")?;
    let mut merges = Merges::with_capacity(list.len());
    let mut joined = Vec::with_capacity(BATCH * 32);
    for (c, chunk) in list.chunks(BATCH).enumerate() {
        let mut parts: [(&[u8], &[u8]); BATCH] = [(&[], &[]); BATCH];
        let mut spans = [(0, 0); BATCH];
        joined.clear();
        for (k, m) in chunk.iter().enumerate() {
            let b = m.as_bytes();
            // Split at the first space after the first byte, as llama.cpp does.
            let Some(pos) = b.iter().skip(1).position(|&c| c == b' ').map(|p| p + 1) else {
                continue;
            };
            parts[k] = (&b[..pos], &b[pos + 1..]);
            let start = joined.len();
            joined.extend_from_slice(&b[..pos]);
            joined.extend_from_slice(&b[pos + 1..]);
            spans[k] = (start, joined.len());
        }
        let lefts = index.find_batch(texts, &parts.map(|p| p.0));
        let rights = index.find_batch(texts, &parts.map(|p| p.1));
        let merged = index.find_batch(texts, &spans.map(|(a, b)| &joined[a..b]));
        for k in 0..chunk.len() {
            if parts[k].0.is_empty() {
                continue;
            }
            if let (Some(l), Some(r), Some(m)) = (lefts[k], rights[k], merged[k]) {
                merges.insert(l, r, (c * BATCH + k) as u32, m);
            }
        }
    }
    Ok(merges)
}

/// Most bytes of decoded pieces per byte of token text: a piece is never longer than its
/// text, except for `[UNK_BYTE_0x..]` markers (15 bytes for a 1-byte character).
const PIECE_BUDGET: usize = 2;

/// The bytes each token stands for: byte-level characters decoded for normal tokens, the
/// text itself for control/user-defined/unknown tokens, nothing for unused ones.
///
/// A character outside the byte alphabet becomes `[UNK_BYTE_0x<its UTF-8 in hex>]`.
/// llama.cpp also appends the whole token text inside every such marker, which is quadratic
/// in the token's length (a hostile 1 MB token needs ~10^11 bytes); here the cost is linear
/// and all pieces together are held to `PIECE_BUDGET` times the text plus 1 MiB.
fn decoded_pieces(texts: &Arena, attrs: &[u8]) -> Result<Arena, LlmError> {
    let limit = texts
        .bytes_len()
        .saturating_mul(PIECE_BUDGET)
        .saturating_add(1 << 20);
    let mut pieces = Arena::with_capacity(texts.len(), texts.bytes_len(), limit);
    let full = |_: ArenaFull| {
        invalid(format!(
            "decoded tokens exceed {limit} bytes: too many characters outside the byte alphabet"
        ))
    };
    let mut utf8 = [0u8; 4];
    for (id, &a) in attrs.iter().enumerate() {
        let text = texts.get(id);
        pieces.push(&[]).map_err(full)?;
        if a & (attr::CONTROL | attr::UNKNOWN | attr::USER_DEFINED) != 0 {
            pieces.extend_last(text).map_err(full)?;
        } else if a & attr::NORMAL != 0 {
            // Token texts came from Rust strings, so they are valid UTF-8.
            let s = std::str::from_utf8(text).unwrap_or_default();
            for c in s.chars() {
                match char_to_byte(c) {
                    Some(byte) => pieces.extend_last(&[byte]).map_err(full)?,
                    None => {
                        let mut marker = *b"[UNK_BYTE_0x00000000]";
                        let bytes = c.encode_utf8(&mut utf8).as_bytes();
                        for (k, b) in bytes.iter().enumerate() {
                            marker[12 + 2 * k] = HEX[usize::from(b >> 4)];
                            marker[13 + 2 * k] = HEX[usize::from(b & 15)];
                        }
                        let n = 12 + 2 * bytes.len();
                        marker[n] = b']';
                        pieces.extend_last(&marker[..=n]).map_err(full)?;
                    }
                }
            }
        } else if a & attr::BYTE != 0
            && let Some(b) = byte_token_value(text)
        {
            pieces.extend_last(&[b]).map_err(full)?;
        }
    }
    Ok(pieces)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `<0xAB>` -> 0xAB.
fn byte_token_value(text: &[u8]) -> Option<u8> {
    let hex = text.strip_prefix(b"<0x")?.strip_suffix(b">")?;
    u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
}
