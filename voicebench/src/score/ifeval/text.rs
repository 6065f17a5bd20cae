//! IFEval's text helpers: sentence splitting and word counting (`instructions_util.py`).

use std::sync::LazyLock;

use regex::Regex;

struct SentenceRules {
    prefixes: Regex,
    websites: Regex,
    digits: Regex,
    multiple_dots: Regex,
    single_letter: Regex,
    acronym_starter: Regex,
    three_letter_acronym: Regex,
    two_letter_acronym: Regex,
    suffix_starter: Regex,
    suffix: Regex,
    letter_dot: Regex,
}

const STARTERS: &str = r"(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He\s|She\s|It\s|They\s|Their\s|Our\s|We\s|But\s|However\s|That\s|This\s|Wherever)";
const ACRONYMS: &str = r"([A-Z][.][A-Z][.](?:[A-Z][.])?)";
const SUFFIXES: &str = r"(Inc|Ltd|Jr|Sr|Co)";

fn rx(pattern: &str) -> Regex {
    // The patterns are constants of this file; a typo is caught by the tests below.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in pattern {pattern}: {e}"))
}

static RULES: LazyLock<SentenceRules> = LazyLock::new(|| SentenceRules {
    prefixes: rx(r"(Mr|St|Mrs|Ms|Dr)[.]"),
    websites: rx(r"[.](com|net|org|io|gov|edu|me)"),
    digits: rx(r"([0-9])[.]([0-9])"),
    multiple_dots: rx(r"\.{2,}"),
    single_letter: rx(r"\s([A-Za-z])[.] "),
    acronym_starter: rx(&format!("{ACRONYMS} {STARTERS}")),
    three_letter_acronym: rx(r"([A-Za-z])[.]([A-Za-z])[.]([A-Za-z])[.]"),
    two_letter_acronym: rx(r"([A-Za-z])[.]([A-Za-z])[.]"),
    suffix_starter: rx(&format!(" {SUFFIXES}[.] {STARTERS}")),
    suffix: rx(&format!(" {SUFFIXES}[.]")),
    letter_dot: rx(r" ([A-Za-z])[.]"),
});

static WORD: LazyLock<Regex> = LazyLock::new(|| rx(r"\w+"));

/// `re.sub(pattern, replacement, text)`, with the replacement's groups written `${n}`.
fn sub(pattern: &Regex, replacement: &str, text: &str) -> String {
    pattern.replace_all(text, replacement).into_owned()
}

/// IFEval's rule-based `split_into_sentences`, step for step. IFEval guards its plain replaces
/// with `if "Ph.D" in text` and the like; a replace that finds nothing changes nothing, so here
/// they run unguarded.
pub fn split_into_sentences(text: &str) -> Vec<String> {
    let r = &*RULES;
    let mut t = format!(" {text}  ").replace('\n', " ");
    t = sub(&r.prefixes, "${1}<prd>", &t);
    t = sub(&r.websites, "<prd>${1}", &t);
    t = sub(&r.digits, "${1}<prd>${2}", &t);
    t = r
        .multiple_dots
        .replace_all(&t, |c: &regex::Captures| {
            format!("{}<stop>", "<prd>".repeat(c[0].len()))
        })
        .into_owned();
    t = t.replace("Ph.D.", "Ph<prd>D<prd>");
    t = sub(&r.single_letter, " ${1}<prd> ", &t);
    t = sub(&r.acronym_starter, "${1}<stop> ${2}", &t);
    t = sub(&r.three_letter_acronym, "${1}<prd>${2}<prd>${3}<prd>", &t);
    t = sub(&r.two_letter_acronym, "${1}<prd>${2}<prd>", &t);
    t = sub(&r.suffix_starter, " ${1}<stop> ${2}", &t);
    t = sub(&r.suffix, " ${1}<prd>", &t);
    t = sub(&r.letter_dot, " ${1}<prd>", &t);
    for (from, to) in [(".”", "”."), (".\"", "\"."), ("!\"", "\"!"), ("?\"", "\"?")] {
        t = t.replace(from, to);
    }
    t = t
        .replace('.', ".<stop>")
        .replace('?', "?<stop>")
        .replace('!', "!<stop>")
        .replace("<prd>", ".");
    let mut sentences: Vec<String> = t.split("<stop>").map(|s| s.trim().to_string()).collect();
    if sentences.last().is_some_and(|s| s.is_empty()) {
        sentences.pop();
    }
    sentences
}

/// Sentence count. IFEval uses NLTK's trained Punkt model here; we use IFEval's own rule-based
/// splitter above instead (no model files offline), which agrees on ordinary prose.
pub fn count_sentences(text: &str) -> usize {
    split_into_sentences(text).len()
}

/// Word count as NLTK's `RegexpTokenizer(r"\w+")`.
pub fn count_words(text: &str) -> usize {
    WORD.find_iter(text).count()
}

/// An approximation of NLTK's `word_tokenize` (Treebank): whitespace split, punctuation split
/// off word edges, and `n't` / `'s` / `'re` / `'ve` / `'ll` / `'d` / `'m` split off as tokens.
pub fn word_tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for chunk in text.split_whitespace() {
        let core_start = chunk
            .char_indices()
            .find(|(_, c)| c.is_alphanumeric())
            .map(|(i, _)| i);
        let Some(start) = core_start else {
            tokens.push(chunk.to_string());
            continue;
        };
        let end = chunk
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_alphanumeric())
            .map(|(i, c)| i + c.len_utf8())
            .unwrap_or(chunk.len());
        if start > 0 {
            tokens.push(chunk[..start].to_string());
        }
        let core = &chunk[start..end];
        let lower = core.to_lowercase();
        let clitic = ["n't", "'s", "'re", "'ve", "'ll", "'d", "'m"]
            .iter()
            .find(|c| lower.ends_with(*c) && lower.len() > c.len())
            .map(|c| c.len());
        match clitic {
            Some(n) if core.is_char_boundary(core.len() - n) => {
                tokens.push(core[..core.len() - n].to_string());
                tokens.push(core[core.len() - n..].to_string());
            }
            _ => tokens.push(core.to_string()),
        }
        if end < chunk.len() {
            tokens.push(chunk[end..].to_string());
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_follow_ifeval_splitter() {
        assert_eq!(
            count_sentences("Hello world. This is Mr. Smith! Is it 3.5? Yes"),
            4
        );
        assert_eq!(
            split_into_sentences("I went to e.g. the U.S. today. Then home."),
            vec!["I went to e.g. the U.S. today.", "Then home."]
        );
        assert_eq!(count_sentences(""), 0);
        assert_eq!(count_sentences("Wait... what"), 2);
    }

    #[test]
    fn words_and_tokens() {
        assert_eq!(count_words("Hello, world! It's 2024."), 5);
        assert_eq!(
            word_tokenize("DON'T stop, NOW."),
            vec!["DO", "N'T", "stop", ",", "NOW", "."]
        );
    }
}
