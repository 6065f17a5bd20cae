//! Multiple-choice scoring (openbookqa, mmsu) by VoiceBench's `mcq` rules.

use super::mcq_templates::TEMPLATES;
use super::pytext::py_strip;
use pocket_stats::Rng;

const CHOICES: [char; 4] = ['a', 'b', 'c', 'd'];

/// Strip the `<1>`/`<2>`/`<3>` speaker tag some models emit, as VoiceBench does.
fn strip_turn_tag(response: &str) -> &str {
    for tag in ["<1>", "<2>", "<3>"] {
        if let Some(rest) = response.strip_prefix(tag) {
            return py_strip(rest);
        }
    }
    response
}

/// The letter (A-D) a response picks, or `None` when no VoiceBench pattern matches.
pub fn extract_choice(response: &str) -> Option<char> {
    let lowered = response.to_lowercase();
    let text = strip_turn_tag(&lowered);
    for template in TEMPLATES {
        for choice in CHOICES {
            let filled = template.replace("[CHOICE]", choice.encode_utf8(&mut [0; 4]));
            if text.contains(&filled) {
                return Some(choice.to_ascii_uppercase());
            }
        }
    }
    for choice in CHOICES {
        let mut rest = text.chars();
        if rest.next() == Some(choice) {
            let tail = rest.as_str();
            if tail.is_empty() || [".", ",", ":", ")"].iter().any(|p| tail.starts_with(p)) {
                return Some(choice.to_ascii_uppercase());
            }
        }
    }
    let last_resort = [
        "would be a.",
        "would be \"a.",
        "the best option from the given choices would be a scorpion (a)",
    ];
    last_resort.iter().any(|p| text.contains(p)).then_some('A')
}

/// Outcome of scoring one split: VoiceBench's `acc` and `fail` (both in percent).
#[derive(Debug, Clone, PartialEq)]
pub struct McqOutcome {
    pub correct: usize,
    pub total: usize,
    /// Responses where nothing parsed and a seeded random letter stood in.
    pub fallbacks: usize,
}

/// Score `(response, reference)` pairs; unparsed responses get a seeded random letter,
/// as VoiceBench's `random.choice(['A','B','C','D'])` does (unseeded there).
pub fn score_mcq<'a>(
    items: impl IntoIterator<Item = (&'a str, &'a str)>,
    rng: &mut Rng,
) -> McqOutcome {
    let mut outcome = McqOutcome {
        correct: 0,
        total: 0,
        fallbacks: 0,
    };
    for (response, reference) in items {
        let pick = extract_choice(response).unwrap_or_else(|| {
            outcome.fallbacks += 1;
            CHOICES[rng.below(4)].to_ascii_uppercase()
        });
        outcome.total += 1;
        // VoiceBench compares the letter with the reference string exactly.
        if reference.len() == 1 && reference.starts_with(pick) {
            outcome.correct += 1;
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_in_voicebench_order() {
        // "the answer is [CHOICE]" template.
        assert_eq!(
            extract_choice("I think the answer is b because ..."),
            Some('B')
        );
        // Case-insensitive: the response is lower-cased first.
        assert_eq!(extract_choice("The Correct Answer Is C"), Some('C'));
        // Chinese template "答案是[CHOICE]".
        assert_eq!(extract_choice("答案是d"), Some('D'));
        // "<2>" speaker tag stripped, then bare-letter rule `response.startswith(choice + '.')`.
        assert_eq!(extract_choice("<2> a. a scorpion"), Some('A'));
        // Bare letter equal to the whole response.
        assert_eq!(extract_choice("c"), Some('C'));
        // Template order decides: " a." (template " [CHOICE].") is checked choice by choice
        // after "option [CHOICE]." etc.; here "option d." appears first in the template list.
        assert_eq!(extract_choice("not option a, it is option d."), Some('D'));
        // Last-resort rule "would be a." is shadowed by template "would be [CHOICE]";
        // both give A.
        assert_eq!(extract_choice("my pick would be a."), Some('A'));
        // Nothing parses.
        assert_eq!(extract_choice("I am not sure."), None);
        assert_eq!(extract_choice(""), None);
    }

    #[test]
    fn accuracy_counts_fallbacks_and_is_seeded() {
        let items = [
            ("The answer is A.", "A"),
            ("the answer is b", "C"),
            ("no idea", "D"),
            ("hmm", "A"),
        ];
        let a = score_mcq(items, &mut Rng::new(1));
        let b = score_mcq(items, &mut Rng::new(1));
        assert_eq!(a, b);
        assert_eq!(a.total, 4);
        assert_eq!(a.fallbacks, 2);
        assert!(a.correct >= 1 && a.correct <= 3);
    }
}
