//! Abbreviations that end in a period: how they are spoken, and which do not end a sentence.

/// Lower-cased abbreviation (without its final period) → spoken words.
pub const ABBREVIATIONS: &[(&str, &str)] = &[
    ("mr", "Mister"),
    ("mrs", "Missus"),
    ("ms", "Miz"),
    ("dr", "Doctor"),
    ("prof", "Professor"),
    ("st", "Saint"),
    ("jr", "Junior"),
    ("sr", "Senior"),
    ("mt", "Mount"),
    ("ave", "Avenue"),
    ("blvd", "Boulevard"),
    ("rd", "Road"),
    ("gen", "General"),
    ("gov", "Governor"),
    ("sen", "Senator"),
    ("rep", "Representative"),
    ("capt", "Captain"),
    ("lt", "Lieutenant"),
    ("sgt", "Sergeant"),
    ("vs", "versus"),
    ("etc", "et cetera"),
    ("e.g", "for example"),
    ("i.e", "that is"),
    ("approx", "approximately"),
    ("dept", "department"),
    ("est", "established"),
    ("fig", "figure"),
    ("inc", "Incorporated"),
    ("ltd", "Limited"),
    ("corp", "Corporation"),
    ("jan", "January"),
    ("feb", "February"),
    ("mar", "March"),
    ("apr", "April"),
    ("aug", "August"),
    ("sep", "September"),
    ("sept", "September"),
    ("oct", "October"),
    ("nov", "November"),
    ("dec", "December"),
];

/// Whether a period after `token` (the word before it, as written) does not end a sentence.
pub fn period_is_not_sentence_end(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    if lower == "etc" || lower.is_empty() {
        // "etc." usually does end the sentence it closes.
        return false;
    }
    // Initials ("J. Smith") and dotted forms ("U.S.", "e.g.").
    let single_letter = lower.len() == 1 && lower.chars().all(|c| c.is_ascii_alphabetic());
    let dotted = lower.contains('.') && lower.chars().all(|c| c.is_ascii_alphabetic() || c == '.');
    single_letter || dotted || ABBREVIATIONS.iter().any(|(a, _)| *a == lower)
}

/// The spoken form of an abbreviation written with a period, if it is one.
pub fn expand(token: &str) -> Option<&'static str> {
    let lower = token.to_ascii_lowercase();
    ABBREVIATIONS
        .iter()
        .find(|(a, _)| *a == lower)
        .map(|(_, words)| *words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_which_periods_do_not_end_sentences() {
        assert!(period_is_not_sentence_end("Dr"));
        assert!(period_is_not_sentence_end("e.g"));
        assert!(period_is_not_sentence_end("U.S"));
        assert!(period_is_not_sentence_end("J"));
        assert!(!period_is_not_sentence_end("etc"));
        assert!(!period_is_not_sentence_end("house"));
        assert!(!period_is_not_sentence_end("3"));
        assert_eq!(expand("Dr"), Some("Doctor"));
        assert_eq!(expand("table"), None);
    }
}
