//! The opening of the user's words that a reply may not echo: their tokens up to and including
//! the first token of the n-th word, with the first letter as typed and with its case flipped
//! (the recognizer writes "which far man ...", the model echoes "Which far man ...").

use crate::tokenizer::Tokenizer;

/// Appends to `out` the openings of `user_text` (see the module), each as its tokens followed by
/// its length in `lens`; nothing when the text has fewer than `words` words or `words` is 0.
pub fn echo_openings(
    tok: &Tokenizer,
    user_text: &str,
    words: usize,
    out: &mut Vec<u32>,
    lens: &mut Vec<usize>,
) {
    let text = user_text.trim_start();
    let Some(first) = text.chars().next() else {
        return;
    };
    if words == 0 {
        return;
    }
    let flipped: String = if first.is_uppercase() {
        first.to_lowercase().collect()
    } else {
        first.to_uppercase().collect()
    };
    let rest = &text[first.len_utf8()..];
    let mut variant = String::with_capacity(text.len() + 2);
    variant.push_str(&flipped);
    variant.push_str(rest);
    for (k, t) in [text, variant.as_str()].into_iter().enumerate() {
        if k == 1 && variant == text {
            break;
        }
        let start = out.len();
        tok.encode_into(t, false, false, out);
        match nth_word_start(tok, &out[start..], words) {
            Some(end) => {
                out.truncate(start + end + 1);
                lens.push(end + 1);
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
