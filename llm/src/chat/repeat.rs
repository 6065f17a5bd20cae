//! Is the user asking the same thing again? A repeated question deserves the same answer, so
//! the rule that keeps a reply from copying the previous one (a small model otherwise answers
//! every question with the start of its last answer) stands aside for it: with the rule, the
//! second "How many days are in a week?" was forced to "There are 52 weeks in a year."

/// Whether `now` asks what `before` asked: case and punctuation aside, the words in one and
/// not the other are only filler or function words ("please", "again", "um"; "there", "is",
/// "what's"), the small variations between two takes of one question ("are in" / "are there
/// in"). One content word apart ("France" / "Germany") is another question.
pub fn same_question(before: &str, now: &str) -> bool {
    let a = words(before);
    let b = words(now);
    if a.iter().all(|w| FILLER.contains(&w.as_str()))
        || b.iter().all(|w| FILLER.contains(&w.as_str()))
    {
        return false;
    }
    let only_in = |x: &[String], y: &[String]| {
        x.iter()
            .filter(|w| !y.contains(w))
            .all(|w| FILLER.contains(&w.as_str()))
    };
    only_in(&a, &b) && only_in(&b, &a)
}

/// Words that say nothing about what is asked.
const FILLER: [&str; 32] = [
    "please", "again", "so", "um", "uh", "er", "well", "okay", "ok", "hey", "and", "now", "then",
    "tell", "me", "can", "could", "you", "i", "want", "to", "know", "there", "is", "are", "was",
    "the", "a", "an", "what", "what's", "whats",
];

/// The lowercase words of `text`, each once, in order.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .map(|w| w.trim_matches(['\'', '’']).replace('’', "'").to_lowercase())
        .filter(|w| !w.is_empty())
    {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::same_question;

    #[test]
    fn the_same_question_asked_again_is_recognised() {
        assert!(same_question(
            "How many days are in a week?",
            "how many days are in a week"
        ));
        assert!(same_question(
            "How many days are in a week?",
            "Um, how many days are there in a week, please?"
        ));
        assert!(same_question(
            "What is the boiling point of water?",
            "What's the boiling point of water?"
        ));
        assert!(same_question("Tell me a joke.", "Tell me a joke again!"));
    }

    #[test]
    fn different_questions_are_not_the_same() {
        assert!(!same_question(
            "How many days are in a week?",
            "How many weeks are in a year?"
        ));
        assert!(!same_question(
            "What is the capital of France?",
            "What is the capital of Germany?"
        ));
        assert!(!same_question("What do bees make?", "What color is grass?"));
        assert!(!same_question(
            "What is the capital city of the country France?",
            "What is the capital city of the country Germany?"
        ));
        assert!(!same_question("", "What color is grass?"));
        assert!(!same_question("...", "..."));
        assert!(!same_question("Okay.", "Okay."));
    }
}
