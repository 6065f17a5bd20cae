//! Whether what the user said over a reply was only a backchannel ("mm-hm", "yeah", "okay",
//! "right") or no words at all (a cough, a laugh: the recognizer writes nothing, or a
//! bracketed sound such as "[laughs]"), so the reply goes on; anything else is a real
//! interruption ("wait", "no, stop", a new question).

/// Words and short phrases that acknowledge without taking the turn (hums — "mm-hmm", "uh-huh",
/// "hmm" in any spelling — are recognized by their letters, see [`is_hum`]).
const BACKCHANNELS: &[&str] = &[
    "um",
    "ah",
    "oh",
    "yeah",
    "yes",
    "yep",
    "yup",
    "ok",
    "okay",
    "right",
    "sure",
    "alright",
    "all right",
    "i see",
    "got it",
    "cool",
    "nice",
    "wow",
    "great",
    "good",
    "thanks",
    "thank you",
    "oh okay",
    "ah okay",
    "okay okay",
    "yeah yeah",
    "right right",
    // "huh" alone is a question ("what?"), not a hum; after "uh" it is one.
    "uh huh",
];

/// Most words a backchannel has ("yeah, okay, got it" is not one).
const MAX_WORDS: usize = 3;

/// The words of `text`, lowercase, without punctuation or bracketed sound descriptions.
fn words(text: &str) -> Vec<String> {
    let mut plain = String::with_capacity(text.len());
    let (mut depth, mut starred) = (0usize, false);
    for c in text.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth = depth.saturating_sub(1),
            '*' => starred = !starred,
            _ if depth > 0 || starred => {}
            c if c.is_alphanumeric() || c == '\'' || c == '-' => plain.extend(c.to_lowercase()),
            _ => plain.push(' '),
        }
    }
    plain
        .split_whitespace()
        .map(|w| w.trim_matches(['-', '\'']).to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// A hum however the recognizer spells it ("mm", "MMMHMM", "hmmmm", "mm-hmmm", "uh", "uhhuh"):
/// only the letters m and h with at least one m, or only u and h starting with u and ending
/// with h; hyphens ignored. A list cannot hold every count of repeated letters (flite rms's
/// "Mm-hmm." came out as "MMMHMM.").
fn is_hum(word: &str) -> bool {
    let letters: String = word.chars().filter(|c| *c != '-').collect();
    let only = |set: &[char]| !letters.is_empty() && letters.chars().all(|c| set.contains(&c));
    (only(&['m', 'h']) && letters.contains('m'))
        || (only(&['u', 'h']) && letters.starts_with('u') && letters.ends_with('h'))
}

/// True when `text` has no words, or only backchannel words (at most [`MAX_WORDS`]).
pub fn is_backchannel(text: &str) -> bool {
    let words = words(text);
    if words.is_empty() {
        return true;
    }
    if words.len() > MAX_WORDS {
        return false;
    }
    // The whole phrase is one, or every word is.
    let phrase = words.join(" ");
    BACKCHANNELS.contains(&phrase.as_str())
        || words
            .iter()
            .all(|w| BACKCHANNELS.contains(&w.as_str()) || is_hum(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backchannels_and_sounds_are_not_interruptions() {
        for said in [
            "",
            " ",
            "Mm-hmm.",
            "MMHMM",
            "MMMHMM.",
            "Mmmm.",
            "Hmmmm...",
            "Uhhuh.",
            "Mm-hmmm.",
            "Mmm, hmm.",
            "mm-hm",
            "Uh-huh.",
            "Uh huh.",
            "mhm",
            "mm",
            "Uh.",
            "Hm.",
            "Mm hmm.",
            "Yeah.",
            "Yeah, yeah.",
            "Okay.",
            "OK",
            "Right.",
            "I see.",
            "Oh, okay.",
            "Got it.",
            "Thank you.",
            "[laughs]",
            "(coughing)",
            "*cough*",
            "...",
            "Hmm?",
        ] {
            assert!(is_backchannel(said), "{said:?} is a backchannel");
        }
    }

    #[test]
    fn real_interruptions_are_not_backchannels() {
        for said in [
            "Wait.",
            "No, stop.",
            "Stop",
            "Hold on",
            "What time is it?",
            "Okay, but what about Paris?",
            "Yeah, okay, got it, thanks.",
            "Yes please tell me more",
            "Hm, how about Paris?",
            "Hmm, Paris?",
            "Huh?",
            "No",
            "Actually, never mind.",
            "[laughs] wait",
        ] {
            assert!(!is_backchannel(said), "{said:?} interrupts");
        }
    }
}
