//! BBH scoring (four tasks) by VoiceBench's `bbh` rules: normalise, then first matching rule.

use super::bbh_rules::{HYPERBATON, NAVIGATE, SPORTS_UNDERSTANDING, WEB_OF_LIES, YES_NO};
use super::pytext::{py_split, py_strip};
use pocket_stats::Rng;

/// One line of a VoiceBench `if/elif` chain over the normalised response.
#[derive(Debug, Clone, Copy)]
pub(super) enum Rule {
    /// `response == s`
    Equals(&'static str, u8),
    /// `s in response`
    Contains(&'static str, u8),
    /// `response.startswith(s)`
    StartsWith(&'static str, u8),
    /// `response.endswith(s)`
    EndsWith(&'static str, u8),
    /// `re.search("PREFIX(.+?)SUFFIX", response)`: prefix, at least one character, suffix.
    Gap(&'static str, &'static str, u8),
}

impl Rule {
    fn apply(self, text: &str) -> Option<u8> {
        let (hit, answer) = match self {
            Rule::Equals(s, a) => (text == s, a),
            Rule::Contains(s, a) => (text.contains(s), a),
            Rule::StartsWith(s, a) => (text.starts_with(s), a),
            Rule::EndsWith(s, a) => (text.ends_with(s), a),
            Rule::Gap(prefix, suffix, a) => (gap_matches(text, prefix, suffix), a),
        };
        hit.then_some(answer)
    }
}

/// `PREFIX(.+?)SUFFIX` without newlines (the normalised text has none): the earliest prefix
/// leaves the most room, so it is enough to look for the suffix one character after it.
fn gap_matches(text: &str, prefix: &str, suffix: &str) -> bool {
    let Some(at) = text.find(prefix) else {
        return false;
    };
    let after = &text[at + prefix.len()..];
    let mut chars = after.chars();
    if chars.next().is_none() {
        return false;
    }
    chars.as_str().contains(suffix)
}

/// The four BBH tasks VoiceBench ships, recognised from the sample `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BbhTask {
    SportsUnderstanding,
    Hyperbaton,
    Navigate,
    WebOfLies,
}

impl BbhTask {
    /// Same substring tests and order as VoiceBench's `extract_answer`.
    pub fn from_id(id: &str) -> Option<BbhTask> {
        if id.contains("sports_understanding") {
            Some(BbhTask::SportsUnderstanding)
        } else if id.contains("hyperbaton") {
            Some(BbhTask::Hyperbaton)
        } else if id.contains("navigate") {
            Some(BbhTask::Navigate)
        } else if id.contains("web_of_lies") {
            Some(BbhTask::WebOfLies)
        } else {
            None
        }
    }

    fn rules(self) -> &'static [Rule] {
        match self {
            BbhTask::SportsUnderstanding => SPORTS_UNDERSTANDING,
            BbhTask::Hyperbaton => HYPERBATON,
            BbhTask::Navigate => NAVIGATE,
            BbhTask::WebOfLies => WEB_OF_LIES,
        }
    }

    /// All but hyperbaton try the yes/no rules first.
    fn yes_no_first(self) -> bool {
        self != BbhTask::Hyperbaton
    }
}

/// VoiceBench's `normalize`: lower-case, strip chat tags, turn `: ** " - , . ：` into spaces and
/// collapse whitespace.
pub fn normalize(response: &str) -> String {
    let mut text = response.to_lowercase();
    if let Some(rest) = text.strip_suffix("<|user|>") {
        text = py_strip(rest).to_string();
    }
    for tag in ["<1>", "<2>", "<3>"] {
        if let Some(rest) = text.strip_prefix(tag) {
            text = py_strip(rest).to_string();
            break;
        }
    }
    let text = text.replace("<|turn_end|>", "");
    let text = [":", "**", "\"", "-", ",", ".", "："]
        .iter()
        .fold(text, |t, p| t.replace(p, " "));
    py_split(&text).collect::<Vec<_>>().join(" ")
}

/// The answer (0 = no/(A), 1 = yes/(B)) the rules read from a response, or `None` when none
/// applies (VoiceBench then picks at random).
pub fn extract_answer(task: BbhTask, response: &str) -> Option<u8> {
    let text = normalize(response);
    let first = if task.yes_no_first() { YES_NO } else { &[] };
    first
        .iter()
        .chain(task.rules())
        .find_map(|rule| rule.apply(&text))
}

/// VoiceBench's ground-truth mapping: yes→1, no→0, (a)→0, (b)→1 (case-insensitive).
pub fn reference_answer(reference: &str) -> Option<u8> {
    match reference.to_lowercase().as_str() {
        "yes" | "(b)" => Some(1),
        "no" | "(a)" => Some(0),
        _ => None,
    }
}

/// Score one response: `(correct, used_random_fallback)`.
pub fn score_one(task: BbhTask, response: &str, truth: u8, rng: &mut Rng) -> (bool, bool) {
    match extract_answer(task, response) {
        Some(answer) => (answer == truth, false),
        None => (rng.below(2) as u8 == truth, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_like_voicebench() {
        assert_eq!(normalize("<1> The **answer**: Yes."), "the answer yes");
        assert_eq!(normalize("So - no, it isn't.<|user|>"), "so no it isn't");
    }

    #[test]
    fn task_rules_from_bbh_py() {
        use BbhTask::*;
        // yes/no rule "answer is no" first, for every task but hyperbaton.
        assert_eq!(extract_answer(Navigate, "The answer is: No."), Some(0));
        assert_eq!(
            extract_answer(SportsUnderstanding, "Final answer: yes"),
            Some(1)
        );
        // hyperbaton's own first rules: bare "a" -> 0 and VoiceBench's bare "b" -> 0 quirk.
        assert_eq!(extract_answer(Hyperbaton, "A"), Some(0));
        assert_eq!(extract_answer(Hyperbaton, "B."), Some(0));
        assert_eq!(extract_answer(Hyperbaton, "The answer is (B)."), Some(1));
        // web_of_lies regex rule `answer is (.+?) tells the truth` (the yes/no table misses it).
        assert_eq!(
            extract_answer(WebOfLies, "So the answer is Jim tells the truth"),
            Some(1)
        );
        // ... and the endswith rule "is lying".
        assert_eq!(
            extract_answer(WebOfLies, "Therefore, Sherrie is lying."),
            Some(0)
        );
        // navigate substring rule.
        assert_eq!(
            extract_answer(Navigate, "You do not return to the starting point."),
            Some(0)
        );
        // sports: "the sentence (.+?) is not plausible" maps to 1 in VoiceBench (kept as is).
        assert_eq!(
            extract_answer(SportsUnderstanding, "The sentence X is not plausible"),
            Some(1)
        );
        // Gap needs at least one character between prefix and suffix.
        assert!(!gap_matches("answer is  lies", "answer is ", " lies"));
        assert!(gap_matches("answer is x lies", "answer is ", " lies"));
        // Nothing matches: random fallback in VoiceBench.
        assert_eq!(extract_answer(Navigate, "I can't tell."), None);
    }

    #[test]
    fn ids_and_references() {
        assert_eq!(BbhTask::from_id("web_of_lies_3"), Some(BbhTask::WebOfLies));
        assert_eq!(BbhTask::from_id("date_understanding"), None);
        assert_eq!(reference_answer("(A)"), Some(0));
        assert_eq!(reference_answer("Yes"), Some(1));
        assert_eq!(reference_answer("maybe"), None);
    }
}
