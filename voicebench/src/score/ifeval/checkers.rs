//! The IFEval instruction checkers VoiceBench registers, built from an id and its kwargs.

use regex::{Regex, RegexBuilder};

use super::language::detect_language;
use super::text::{count_sentences, count_words, word_tokenize};
use crate::sample::InstructionKwargs;

/// IFEval's two comparison relations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    LessThan,
    AtLeast,
}

impl Relation {
    fn parse(s: Option<&str>) -> Result<Relation, String> {
        match s {
            Some("less than") => Ok(Relation::LessThan),
            Some("at least") => Ok(Relation::AtLeast),
            other => Err(format!(
                "relation {other:?} is not `less than` or `at least`"
            )),
        }
    }

    fn holds(self, actual: usize, threshold: i64) -> bool {
        let actual = actual as i64;
        match self {
            Relation::LessThan => actual < threshold,
            Relation::AtLeast => actual >= threshold,
        }
    }
}

/// One instruction with its arguments resolved, ready to check responses.
#[derive(Debug, Clone)]
pub enum Instruction {
    KeywordsExist(Vec<String>),
    KeywordFrequency {
        keyword: String,
        frequency: i64,
        relation: Relation,
    },
    ForbiddenWords(Vec<String>),
    LetterFrequency {
        letter: char,
        frequency: i64,
        relation: Relation,
    },
    ResponseLanguage(String),
    NumberSentences {
        count: i64,
        relation: Relation,
    },
    NumberParagraphs(i64),
    NumberWords {
        count: i64,
        relation: Relation,
    },
    NthParagraphFirstWord {
        paragraphs: i64,
        nth: i64,
        first_word: String,
    },
    NumberPlaceholders(i64),
    Postscript(String),
    NumberBulletLists(i64),
    ConstrainedResponse,
    NumberHighlightedSections(i64),
    MultipleSections {
        splitter: String,
        count: i64,
    },
    JsonFormat,
    Title,
    TwoResponses,
    RepeatPrompt(String),
    EndChecker(String),
    CapitalWordFrequency {
        frequency: i64,
        relation: Relation,
    },
    EnglishCapital,
    EnglishLowercase,
    NoComma,
    Quotation,
}

/// Python truthiness of an argument: VoiceBench drops `None`, `0`, `""` and `[]` before building.
fn int(v: Option<i64>, name: &str) -> Result<i64, String> {
    v.filter(|&n| n != 0)
        .ok_or_else(|| format!("`{name}` is missing (IFEval would draw it at random)"))
}

fn text(v: &Option<String>, name: &str) -> Result<String, String> {
    v.clone()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("`{name}` is missing (IFEval would draw it at random)"))
}

fn list(v: &Option<Vec<String>>, name: &str) -> Result<Vec<String>, String> {
    v.clone()
        .filter(|l| !l.is_empty())
        .ok_or_else(|| format!("`{name}` is missing (IFEval would draw it at random)"))
}

impl Instruction {
    /// Build from an IFEval id such as `keywords:existence`. Errors name what is missing.
    pub fn build(id: &str, k: &InstructionKwargs) -> Result<Instruction, String> {
        use Instruction::*;
        let relation = || Relation::parse(k.relation.as_deref().filter(|s| !s.is_empty()));
        Ok(match id {
            "keywords:existence" => KeywordsExist(list(&k.keywords, "keywords")?),
            "keywords:frequency" => KeywordFrequency {
                keyword: text(&k.keyword, "keyword")?.trim().to_string(),
                frequency: int(k.frequency, "frequency")?,
                relation: relation()?,
            },
            "keywords:forbidden_words" => {
                ForbiddenWords(list(&k.forbidden_words, "forbidden_words")?)
            }
            "keywords:letter_frequency" => {
                let letter = text(&k.letter, "letter")?;
                let mut chars = letter.chars();
                let (Some(c), None) = (chars.next(), chars.next()) else {
                    return Err(format!("letter {letter:?} is not one letter"));
                };
                let c = c.to_ascii_lowercase();
                if !c.is_ascii_lowercase() {
                    return Err(format!("letter {letter:?} is not a-z"));
                }
                LetterFrequency {
                    letter: c,
                    frequency: int(k.let_frequency, "let_frequency")?,
                    relation: Relation::parse(k.let_relation.as_deref())?,
                }
            }
            "language:response_language" => ResponseLanguage(text(&k.language, "language")?),
            "length_constraints:number_sentences" => NumberSentences {
                count: int(k.num_sentences, "num_sentences")?,
                relation: relation()?,
            },
            "length_constraints:number_paragraphs" => {
                NumberParagraphs(int(k.num_paragraphs, "num_paragraphs")?)
            }
            "length_constraints:number_words" => NumberWords {
                count: int(k.num_words, "num_words")?,
                relation: relation()?,
            },
            "length_constraints:nth_paragraph_first_word" => {
                let paragraphs = int(k.num_paragraphs, "num_paragraphs")?;
                let nth = int(k.nth_paragraph, "nth_paragraph")?;
                if nth <= 0 || nth > paragraphs {
                    return Err(format!("nth_paragraph {nth} is outside 1..={paragraphs}"));
                }
                NthParagraphFirstWord {
                    paragraphs,
                    nth,
                    first_word: text(&k.first_word, "first_word")?.to_lowercase(),
                }
            }
            "detectable_content:number_placeholders" => {
                NumberPlaceholders(int(k.num_placeholders, "num_placeholders")?)
            }
            "detectable_content:postscript" => Postscript(
                text(&k.postscript_marker, "postscript_marker")?
                    .trim()
                    .to_string(),
            ),
            "detectable_format:number_bullet_lists" => {
                NumberBulletLists(int(k.num_bullets, "num_bullets")?)
            }
            "detectable_format:constrained_response" => ConstrainedResponse,
            "detectable_format:number_highlighted_sections" => {
                NumberHighlightedSections(int(k.num_highlights, "num_highlights")?)
            }
            "detectable_format:multiple_sections" => MultipleSections {
                splitter: text(&k.section_spliter, "section_spliter")?
                    .trim()
                    .to_string(),
                count: int(k.num_sections, "num_sections")?,
            },
            "detectable_format:json_format" => JsonFormat,
            "detectable_format:title" => Title,
            "combination:two_responses" => TwoResponses,
            "combination:repeat_prompt" => {
                RepeatPrompt(text(&k.prompt_to_repeat, "prompt_to_repeat")?)
            }
            "startend:end_checker" => {
                EndChecker(text(&k.end_phrase, "end_phrase")?.trim().to_string())
            }
            "change_case:capital_word_frequency" => CapitalWordFrequency {
                frequency: int(k.capital_frequency, "capital_frequency")?,
                relation: Relation::parse(k.capital_relation.as_deref())?,
            },
            "change_case:english_capital" => EnglishCapital,
            "change_case:english_lowercase" => EnglishLowercase,
            "punctuation:no_comma" => NoComma,
            "startend:quotation" => Quotation,
            other => return Err(format!("unknown instruction id `{other}`")),
        })
    }

    /// Whether `value` follows the instruction (IFEval's `check_following`).
    pub fn check(&self, value: &str) -> bool {
        use Instruction::*;
        match self {
            KeywordsExist(words) => words.iter().all(|w| user_regex(w, true).is_match(value)),
            KeywordFrequency {
                keyword,
                frequency,
                relation,
            } => relation.holds(
                user_regex(keyword, true).find_iter(value).count(),
                *frequency,
            ),
            ForbiddenWords(words) => !words
                .iter()
                .any(|w| user_regex(&format!(r"\b{w}\b"), true).is_match(value)),
            LetterFrequency {
                letter,
                frequency,
                relation,
            } => {
                let n = value.to_lowercase().chars().filter(|c| c == letter).count();
                relation.holds(n, *frequency)
            }
            ResponseLanguage(code) => detect_language(value).is_none_or(|found| found == code),
            NumberSentences { count, relation } => relation.holds(count_sentences(value), *count),
            NumberParagraphs(n) => paragraphs_by_divider(value) == Some(*n),
            NumberWords { count, relation } => relation.holds(count_words(value), *count),
            NthParagraphFirstWord {
                paragraphs,
                nth,
                first_word,
            } => nth_paragraph_first_word(value, *paragraphs, *nth, first_word),
            NumberPlaceholders(n) => fixed(r"\[.*?\]").find_iter(value).count() as i64 >= *n,
            Postscript(marker) => postscript_present(value, marker),
            NumberBulletLists(n) => {
                let stars = fixed(r"(?m)^\s*\*[^\*].*$").find_iter(value).count();
                let dashes = fixed(r"(?m)^\s*-.*$").find_iter(value).count();
                (stars + dashes) as i64 == *n
            }
            ConstrainedResponse => {
                let v = value.trim();
                [
                    "My answer is yes.",
                    "My answer is no.",
                    "My answer is maybe.",
                ]
                .iter()
                .any(|o| v.contains(o))
            }
            NumberHighlightedSections(n) => highlighted_sections(value) >= *n,
            MultipleSections { splitter, count } => {
                let pattern = format!(r"\s?{splitter}\s?\d+\s?");
                user_regex(&pattern, false).find_iter(value).count() as i64 >= *count
            }
            JsonFormat => json_wrapped(value),
            Title => fixed(r"<<[^\n]+>>").find_iter(value).any(|m| {
                !m.as_str()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .trim()
                    .is_empty()
            }),
            TwoResponses => two_responses(value),
            RepeatPrompt(prompt) => value
                .trim()
                .to_lowercase()
                .starts_with(&prompt.trim().to_lowercase()),
            EndChecker(phrase) => value
                .trim()
                .trim_matches('"')
                .to_lowercase()
                .ends_with(&phrase.trim().to_lowercase()),
            CapitalWordFrequency {
                frequency,
                relation,
            } => {
                let n = word_tokenize(value).iter().filter(|w| is_upper(w)).count();
                relation.holds(n, *frequency)
            }
            EnglishCapital => is_upper(value) && detect_language(value).is_none_or(|l| l == "en"),
            EnglishLowercase => is_lower(value) && detect_language(value).is_none_or(|l| l == "en"),
            NoComma => !value.contains(','),
            Quotation => {
                let v = value.trim();
                v.chars().count() > 1 && v.starts_with('"') && v.ends_with('"')
            }
        }
    }
}

/// A pattern from the data, used as a regex as IFEval does; if Rust's regex syntax rejects it,
/// it is matched literally.
fn user_regex(pattern: &str, ignore_case: bool) -> Regex {
    RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .build()
        .or_else(|_| {
            RegexBuilder::new(&regex::escape(pattern))
                .case_insensitive(ignore_case)
                .build()
        })
        .unwrap_or_else(|_| fixed("$^"))
}

/// A pattern written in this file.
fn fixed(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in pattern {pattern}: {e}"))
}

/// Python `str.isupper`: some cased character, and no lower-case one.
fn is_upper(s: &str) -> bool {
    s.chars().any(char::is_uppercase) && !s.chars().any(char::is_lowercase)
}

/// Python `str.islower`.
fn is_lower(s: &str) -> bool {
    s.chars().any(char::is_lowercase) && !s.chars().any(char::is_uppercase)
}

/// Paragraphs split by `***` (ParagraphChecker): `None` when an inner paragraph is empty.
fn paragraphs_by_divider(value: &str) -> Option<i64> {
    let parts: Vec<&str> = fixed(r"\s?\*\*\*\s?").split(value).collect();
    let mut count = parts.len() as i64;
    for (i, p) in parts.iter().enumerate() {
        if p.trim().is_empty() {
            if i == 0 || i == parts.len() - 1 {
                count -= 1;
            } else {
                return None;
            }
        }
    }
    Some(count)
}

fn nth_paragraph_first_word(value: &str, expected: i64, nth: i64, first_word: &str) -> bool {
    let paragraphs: Vec<&str> = value.split("\n\n").collect();
    let count = paragraphs.iter().filter(|p| !p.trim().is_empty()).count() as i64;
    if nth > count {
        return false;
    }
    let Some(paragraph) = usize::try_from(nth - 1)
        .ok()
        .and_then(|i| paragraphs.get(i))
    else {
        return false;
    };
    let paragraph = paragraph.trim();
    let Some(word) = paragraph.split_whitespace().next() else {
        return false;
    };
    let word = word.trim_start_matches('\'').trim_start_matches('"');
    let found: String = word
        .chars()
        .take_while(|c| !matches!(c, '.' | ',' | '?' | '!' | '\'' | '"'))
        .flat_map(char::to_lowercase)
        .collect();
    count == expected && found == first_word
}

fn postscript_present(value: &str, marker: &str) -> bool {
    let value = value.to_lowercase();
    let pattern = match marker {
        "P.P.S" => r"(?m)\s*p\.\s?p\.\s?s.*$".to_string(),
        "P.S." => r"(?m)\s*p\.\s?s\..*$".to_string(),
        other => format!(r"(?m)\s*{}.*$", other.to_lowercase()),
    };
    user_regex(&pattern, false).is_match(&value)
}

fn highlighted_sections(value: &str) -> i64 {
    let single = fixed(r"\*[^\n\*]*\*")
        .find_iter(value)
        .filter(|m| !m.as_str().trim_matches('*').trim().is_empty())
        .count();
    let double = fixed(r"\*\*[^\n\*]*\*\*")
        .find_iter(value)
        .filter(|m| {
            let s = m.as_str();
            let s = s.strip_prefix("**").unwrap_or(s);
            let s = s.strip_suffix("**").unwrap_or(s);
            !s.trim().is_empty()
        })
        .count();
    (single + double) as i64
}

fn json_wrapped(value: &str) -> bool {
    let mut v = value.trim();
    for prefix in ["```json", "```Json", "```JSON", "```"] {
        v = v.strip_prefix(prefix).unwrap_or(v);
    }
    let v = v.strip_suffix("```").unwrap_or(v).trim();
    serde_json::from_str::<serde_json::Value>(v).is_ok()
}

fn two_responses(value: &str) -> bool {
    let parts: Vec<&str> = value.split("******").collect();
    let mut valid = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if p.trim().is_empty() {
            if i != 0 && i != parts.len() - 1 {
                return false;
            }
        } else {
            valid.push(*p);
        }
    }
    valid.len() == 2 && valid[0].trim() != valid[1].trim()
}
