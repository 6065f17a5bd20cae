//! How sure the recognizer was of the last word it heard. At a mid-sentence pause Whisper
//! sometimes finishes the fragment with a word nobody said ("What time does the sun" →
//! "... sun sound?"), and such an invented word comes with a low probability: a caller that
//! ends the turn on the words can treat a doubtful last word as "maybe not finished".

use crate::vocab::Vocab;

/// Probability of the last word of `tokens` (the product over its tokens; punctuation after
/// it is not part of the word): 1.0 when there are no words. `logprobs[i]` belongs to
/// `tokens[i]`.
pub fn last_word_prob(vocab: &Vocab, tokens: &[u32], logprobs: &[f32]) -> f32 {
    let n = tokens.len().min(logprobs.len());
    let is_punct = |id: u32| {
        vocab.token_bytes(id).is_some_and(|b| {
            let t = b.trim_ascii();
            t.is_empty() || t.iter().all(|c| c.is_ascii_punctuation())
        })
    };
    let Some(end) = (0..n).rev().find(|&i| !is_punct(tokens[i])) else {
        return 1.0;
    };
    let mut lp = 0.0;
    for i in (0..=end).rev() {
        lp += logprobs[i];
        // A token that begins with a space (or the first one) starts the word.
        if i == 0
            || vocab
                .token_bytes(tokens[i])
                .is_some_and(|b| b.first() == Some(&b' '))
        {
            break;
        }
    }
    lp.exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vocabulary with the tokens " the", " sun", " so", "und", "?" and the specials.
    fn vocab() -> Vocab {
        let mut lines: Vec<String> = ["Ġthe", "Ġsun", "Ġso", "und", "?"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        lines.extend(
            [
                "<|endoftext|>",
                "<|startoftranscript|>",
                "<|translate|>",
                "<|transcribe|>",
                "<|startoflm|>",
                "<|startofprev|>",
                "<|nospeech|>",
                "<|notimestamps|>",
                "<|0.00|>",
            ]
            .map(String::from),
        );
        Vocab::parse(&lines.join("\n")).expect("vocabulary")
    }

    #[test]
    fn the_last_word_spans_its_tokens_and_skips_punctuation() {
        let v = vocab();
        let lp = [
            0.9f32.ln(),
            0.8f32.ln(),
            0.5f32.ln(),
            0.4f32.ln(),
            0.1f32.ln(),
        ];
        // " the sun" + " so" "und" + "?": the last word is "sound" (0.5 x 0.4).
        let p = last_word_prob(&v, &[0, 1, 2, 3, 4], &lp);
        assert!((p - 0.2).abs() < 1e-5, "{p}");
        // " the sun?" -> "sun" alone.
        let p = last_word_prob(&v, &[0, 1, 4], &[0.9f32.ln(), 0.8f32.ln(), 0.1f32.ln()]);
        assert!((p - 0.8).abs() < 1e-5, "{p}");
    }

    #[test]
    fn no_words_is_certain() {
        let v = vocab();
        assert_eq!(last_word_prob(&v, &[], &[]), 1.0);
        assert_eq!(last_word_prob(&v, &[4], &[0.5f32.ln()]), 1.0);
    }
}
