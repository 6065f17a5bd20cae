//! Whether what the user said over a reply was only a backchannel ("mm-hm", "yeah", "okay",
//! "right", "oh, I see"), a laugh ("ha ha", "hee-hee") or no words at all (a cough: the
//! recognizer writes nothing, or a bracketed sound such as "[laughs]"), so the reply goes on;
//! anything else is a real interruption ("wait", "no, stop", a new question).

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
    "gotcha",
    "oh i see",
    "ah i see",
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

/// Most words a backchannel has ("all right, all right" is one; "yeah okay I got it" is not).
const MAX_WORDS: usize = 4;

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

/// A hum however the recognizer spells it ("mm", "MMMHMM", "hmmmm", "mm-hmmm", "hnn", "uh",
/// "uhhuh", "emm", "uh-hmm"): only the letters m, n and h with at least one m or n; or only u
/// and h starting with u and ending with h; or a vowel, h's, then at least two m's (so "am"
/// and "um-" words are not hums); hyphens ignored. A list cannot hold every count of repeated
/// letters (flite rms's "Mm-hmm." came out as "MMMHMM.").
fn is_hum(word: &str) -> bool {
    let letters: String = word.chars().filter(|c| *c != '-').collect();
    let only = |set: &[char]| !letters.is_empty() && letters.chars().all(|c| set.contains(&c));
    if only(&['m', 'n', 'h']) {
        return letters.contains(['m', 'n']);
    }
    if only(&['u', 'h']) {
        return letters.starts_with('u') && letters.ends_with('h');
    }
    let mut rest = letters.chars().peekable();
    if !matches!(rest.next(), Some('a' | 'e' | 'u')) {
        return false;
    }
    while rest.next_if_eq(&'h').is_some() {}
    let rest: String = rest.collect();
    rest.starts_with("mm") && rest.chars().all(|c| c == 'm' || c == 'h')
}

/// A laugh as the recognizer writes it: "ha", "heh", "hee", "ho" repeated within one word
/// ("haha", "hee-hee-hee") or over two or more words ("Ha ha!", "Ho ho ho"). One "ha" alone is
/// not taken for a laugh, nor is "he" ("he said...").
fn is_laugh(words: &[String]) -> bool {
    let syllables = |w: &str| {
        // Counts "h" + vowels (+ "h") syllables; None when the word is anything else.
        let mut n = 0;
        let mut c = w.chars().filter(|c| *c != '-').peekable();
        while c.next_if_eq(&'h').is_some() {
            let mut vowels = 0;
            while c.next_if(|v| matches!(v, 'a' | 'e' | 'i' | 'o')).is_some() {
                vowels += 1;
            }
            if vowels == 0 {
                return None;
            }
            // A closing h ("hah", "heh") belongs to this syllable unless a vowel follows.
            let mut after = c.clone();
            if after.next() == Some('h') && !matches!(after.peek(), Some('a' | 'e' | 'i' | 'o')) {
                c.next();
            }
            n += 1;
        }
        (c.next().is_none() && n > 0).then_some(n)
    };
    let counts: Option<Vec<usize>> = words.iter().map(|w| syllables(w)).collect();
    counts.is_some_and(|c| c.len() >= 2 || c.first().is_some_and(|&n| n >= 2))
}

/// True when `text` has no words, or only backchannel words (at most [`MAX_WORDS`]).
pub fn is_backchannel(text: &str) -> bool {
    let words = words(text);
    if words.is_empty() || is_laugh(&words) {
        return true;
    }
    if words.len() > MAX_WORDS {
        return false;
    }
    // The words split into listed phrases and hums ("oh, I see", "all right, all right").
    let mut covered = vec![false; words.len() + 1];
    covered[0] = true;
    for start in 0..words.len() {
        if !covered[start] {
            continue;
        }
        for end in start + 1..=words.len() {
            let phrase = words[start..end].join(" ");
            if BACKCHANNELS.contains(&phrase.as_str()) || (end == start + 1 && is_hum(&phrase)) {
                covered[end] = true;
            }
        }
    }
    covered[words.len()]
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
            // Spellings of hums and laughs tiny recognizers wrote for synthetic voices.
            "HNN.",
            "Emm",
            "Uh-hmm.",
            "Mm-hm.",
            "Ha ha!",
            "Ha-ha.",
            "haha",
            "Ha ha ha ha",
            "Hee-hee-hee.",
            "Ho Ho Ho!",
            "Heh heh.",
            // Backchannel phrases in a row.
            "Oh, I see.",
            "All right. All right.",
            "Yeah. Yeah.",
            "Gotcha.",
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
            "Ha, that's wrong.",
            "Ha.",
            "He said no.",
            "Hi.",
            "Hey!",
            "Hello?",
            "Man.",
            "Amen.",
            "Am I right?",
            "Nah.",
            "Shh.",
            "Oh, I see, but why?",
            "Okay. Stop.",
            "Stop. Stop.",
        ] {
            assert!(!is_backchannel(said), "{said:?} interrupts");
        }
    }
}
