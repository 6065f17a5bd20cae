//! Picking among the beam's hearings of a final with a language model's view of them: when
//! greedy decoding was unsure and the beam ran, each hearing (the best and the others the
//! search finished) is scored by the recognizer's log-probability per token plus
//! [`LM_WEIGHT`] times a language model's log-probability per token of the text as a user's
//! message, and the best of that sum becomes the transcript. "What is the boiling boy of
//! water in Celsius?" loses to "What is the boiling point of water in Celsius?", which the
//! recognizer ranked a little lower (docs/PERFORMANCE.md, "The words judge picks the
//! hearing"). The model is outside this crate: [`HearingScorer`].

use crate::recognizer::{OtherHearing, Transcript};

/// Weight of the language model's log-probability per token against the recognizer's,
/// chosen on the tuning clips (`bench/questions.tsv` in three voices: 0.3-1.0 all gave
/// 255-256 of 336 questions heard word for word, against 240 without).
pub const LM_WEIGHT: f32 = 0.5;

/// A hearing with fewer than this share of the best hearing's words is not a candidate:
/// Whisper sometimes ends a hearing at a pause inside the words, and a model likes the
/// shorter whole sentence before it ("Is the following sentence plausible?" without the
/// sentence). 3/4 cost no question on the tuning or held-out clips.
pub const MIN_WORDS_KEPT: (usize, usize) = (3, 4);

/// A language model's log-probability of a text as a user's whole message.
pub trait HearingScorer: Send {
    /// Summed log-probability of `text` (its end of message included) and the tokens it
    /// took; `None` when the model cannot tell (then the recognizer's best stays).
    fn log_prob(&mut self, text: &str) -> Option<(f32, usize)>;
}

/// The recognizer's log-probability per token of a hearing, as Whisper ranks an average
/// (its summed log-probability over the text tokens plus the end-of-text).
fn asr_per_token(sum_logprob: f32, tokens: usize) -> f32 {
    sum_logprob / (tokens + 1) as f32
}

/// Makes `t` the hearing of it (its own text or one of `t.others`) whose recognizer and
/// `scorer` log-probabilities per token sum highest with the model's weighed by
/// [`LM_WEIGHT`]; the hearing it replaces joins the others. Returns whether it changed.
pub fn choose(t: &mut Transcript, scorer: &mut dyn HearingScorer) -> bool {
    if t.others.is_empty() || t.is_silence {
        return false;
    }
    // Scored in the order of their texts, so each shares the most leading words (and the
    // scorer's cache of them) with the one scored before it; index 0 is `t` itself.
    let words = |text: &str| text.split_whitespace().count();
    let (kept, of) = MIN_WORDS_KEPT;
    let least = words(&t.text) * kept;
    let mut order: Vec<(usize, &str)> = std::iter::once(t.text.as_str())
        .chain(t.others.iter().map(|o| o.text.as_str()))
        .enumerate()
        .filter(|&(i, text)| i == 0 || words(text) * of >= least)
        .collect();
    if order.len() < 2 {
        return false;
    }
    order.sort_by(|a, b| a.1.cmp(b.1));
    // Hearings left out keep -inf: never picked.
    let mut scores = vec![f32::NEG_INFINITY; t.others.len() + 1];
    for &(i, text) in &order {
        let asr = match i {
            0 => t.avg_logprob,
            _ => asr_per_token(t.others[i - 1].sum_logprob, t.others[i - 1].tokens.len()),
        };
        let Some((sum, n)) = scorer.log_prob(text) else {
            return false;
        };
        scores[i] = asr + LM_WEIGHT * sum / n.max(1) as f32;
    }
    // The recognizer's best keeps its place unless another hearing scores strictly higher.
    let mut pick = None;
    let mut best = scores[0];
    for (i, &s) in scores.iter().enumerate().skip(1) {
        if s > best {
            best = s;
            pick = Some(i - 1);
        }
    }
    let Some(i) = pick else {
        return false;
    };
    let o = t.others.remove(i);
    let was = OtherHearing {
        text: std::mem::replace(&mut t.text, o.text),
        sum_logprob: t.avg_logprob * (t.tokens.len() + 1) as f32,
        tokens: std::mem::replace(&mut t.tokens, o.tokens),
        token_logprobs: std::mem::replace(&mut t.token_logprobs, o.token_logprobs),
        last_word_prob: std::mem::replace(&mut t.last_word_prob, o.last_word_prob),
    };
    t.avg_logprob = asr_per_token(o.sum_logprob, t.tokens.len());
    t.others.insert(0, was);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores by a table of texts (per-token log-probability given), `None` elsewhere.
    struct Table(Vec<(&'static str, f32)>);

    impl HearingScorer for Table {
        fn log_prob(&mut self, text: &str) -> Option<(f32, usize)> {
            self.0
                .iter()
                .find(|(t, _)| *t == text)
                .map(|&(_, lp)| (lp * 4.0, 4))
        }
    }

    fn heard(best: &str, avg: f32, others: &[(&str, f32)]) -> Transcript {
        Transcript {
            text: best.into(),
            avg_logprob: avg,
            tokens: vec![1, 2, 3],
            token_logprobs: vec![-0.1, -0.2, -0.3],
            last_word_prob: 0.9,
            others: others
                .iter()
                .map(|&(text, per_token)| OtherHearing {
                    text: text.into(),
                    sum_logprob: per_token * 4.0,
                    tokens: vec![7, 8, 9],
                    token_logprobs: vec![-0.5, -0.5, -0.5],
                    last_word_prob: 0.6,
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_likelier_question_a_little_less_heard_wins() {
        let mut t = heard(
            "What is the boiling boy of water?",
            -0.30,
            &[("What is the boiling point of water?", -0.35)],
        );
        let mut lm = Table(vec![
            ("What is the boiling boy of water?", -4.0),
            ("What is the boiling point of water?", -1.5),
        ]);
        assert!(choose(&mut t, &mut lm));
        assert_eq!(t.text, "What is the boiling point of water?");
        assert_eq!(t.tokens, vec![7, 8, 9]);
        assert_eq!(t.last_word_prob, 0.6);
        assert!((t.avg_logprob - -0.35).abs() < 1e-6);
        assert_eq!(t.others[0].text, "What is the boiling boy of water?");
        assert!((t.others[0].sum_logprob - -1.2).abs() < 1e-6);
    }

    #[test]
    fn a_hearing_that_stops_at_a_pause_is_no_candidate() {
        let whole = "Is the following sentence plausible? Messi scored a free kick.";
        let mut t = heard(
            whole,
            -0.30,
            &[("Is the following sentence plausible?", -0.25)],
        );
        let mut lm = Table(vec![
            (whole, -3.0),
            ("Is the following sentence plausible?", -0.5),
        ]);
        assert!(!choose(&mut t, &mut lm));
        assert_eq!(t.text, whole);
    }

    #[test]
    fn a_much_better_hearing_keeps_its_place() {
        let mut t = heard("What is up?", -0.1, &[("What is love?", -2.0)]);
        let mut lm = Table(vec![("What is up?", -3.0), ("What is love?", -1.0)]);
        assert!(!choose(&mut t, &mut lm));
        assert_eq!(t.text, "What is up?");
    }

    #[test]
    fn without_a_score_for_every_hearing_the_best_stays() {
        let mut t = heard("What is up?", -0.5, &[("What is love?", -0.5)]);
        let mut lm = Table(vec![("What is love?", -0.1)]);
        assert!(!choose(&mut t, &mut lm));
        let mut lm = Table(vec![("What is up?", -3.0)]);
        assert!(!choose(&mut t, &mut lm));
        assert_eq!(t.text, "What is up?");
    }
}
