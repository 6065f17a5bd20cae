//! The opening of the user's words that a reply may not echo: their tokens up to and including
//! the first token of the n-th word, with the first letter as typed and with its case flipped
//! (the recognizer writes "which far man ...", the model echoes "Which far man ...").

use crate::tokenizer::Tokenizer;

/// Appends to `out` the openings of `user_text` (see the module), one after another, and to
/// `ends` where each ends in `out` (the layout [`Sampler::avoid_openings`] takes); nothing when
/// the text has fewer than `words` words or `words` is 0.
///
/// [`Sampler::avoid_openings`]: crate::Sampler::avoid_openings
pub fn echo_openings(
    tok: &Tokenizer,
    user_text: &str,
    words: usize,
    out: &mut Vec<u32>,
    ends: &mut Vec<usize>,
) {
    let text = user_text.trim_start();
    let Some(first) = text.chars().next() else {
        return;
    };
    if words == 0 {
        return;
    }
    let mut flipped: String = if first.is_uppercase() {
        first.to_lowercase().collect()
    } else {
        first.to_uppercase().collect()
    };
    flipped.push_str(&text[first.len_utf8()..]);
    let variants: &[&str] = if flipped == text {
        &[text]
    } else {
        &[text, &flipped]
    };
    for t in variants {
        let start = out.len();
        tok.encode_into(t, false, false, out);
        match nth_word_start(tok, &out[start..], words) {
            Some(at) => {
                out.truncate(start + at + 1);
                ends.push(out.len());
            }
            None => out.truncate(start),
        }
    }
}

/// Index of the token that starts word `n` (1-based) of `ids`: the first token starts word 1,
/// a token whose text begins with a space starts the next.
fn nth_word_start(tok: &Tokenizer, ids: &[u32], n: usize) -> Option<usize> {
    let mut word = 0;
    for (i, &id) in ids.iter().enumerate() {
        let piece = tok.piece(id, false).unwrap_or(&[]);
        if i == 0 || piece.first() == Some(&b' ') {
            word += 1;
            if word == n {
                return Some(i);
            }
        }
    }
    None
}
