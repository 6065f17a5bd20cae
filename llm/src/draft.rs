//! Drafts of a reply's next tokens taken from the conversation itself (prompt lookup). A voice
//! assistant's answers restate the question ("What is the capital of Australia?" → "The
//! capital of Australia is Canberra."), so the tokens that followed the reply's last one or
//! two tokens where these last occur in the context are often the tokens the model writes
//! next. [`generate`](crate::generate) runs a draft after the sampled token in one pass
//! ([`Session::run_each`](crate::Session::run_each): the weights are read once for all) and
//! keeps the drafted tokens the sampler picks from the model's own logits, so the reply is the
//! one the model writes token by token; a draft only saves passes.

/// Writes into `out` (cleared first) up to `max` tokens that followed the newest earlier
/// occurrence, in `context` followed by `last`, of its last two tokens, or else of `last`
/// alone. A draft ends before the first token `stop` says (control tokens: the end of a turn
/// is the model's to say) and never runs past `context`.
pub fn draft_from_context(
    context: &[u32],
    last: u32,
    max: usize,
    stop: &dyn Fn(u32) -> bool,
    out: &mut Vec<u32>,
) {
    out.clear();
    if max == 0 || context.is_empty() {
        return;
    }
    let n = context.len();
    let before = context[n - 1];
    // `context[j..j + 2] == [before, last]` with a token after it: j + 2 < n.
    let pair = (0..n.saturating_sub(2))
        .rev()
        .find(|&j| context[j] == before && context[j + 1] == last);
    let from = match pair {
        Some(j) => j + 2,
        None => match (0..n - 1).rev().find(|&j| context[j] == last) {
            Some(j) => j + 1,
            None => return,
        },
    };
    out.extend(
        context[from..]
            .iter()
            .copied()
            .take(max)
            .take_while(|&t| !stop(t)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(context: &[u32], last: u32, max: usize) -> Vec<u32> {
        let mut out = vec![99];
        draft_from_context(context, last, max, &|t| t >= 100, &mut out);
        out
    }

    #[test]
    fn the_newest_pair_wins_over_a_single_token() {
        // "1 2" occurs at 0 and at 5; "2" alone last at 8.
        let ctx = [1, 2, 3, 4, 9, 1, 2, 7, 2, 5, 1];
        assert_eq!(draft(&ctx, 2, 3), vec![7, 2, 5]);
        // Only "2" matches the last token with another before it: its newest occurrence.
        assert_eq!(draft(&ctx[..9], 2, 3), vec![7, 2]);
        let ctx = [1, 2, 3, 4, 2, 8, 6];
        assert_eq!(draft(&ctx, 2, 2), vec![8, 6]);
    }

    #[test]
    fn a_draft_stops_at_control_tokens_the_end_and_max() {
        assert_eq!(draft(&[5, 6, 7, 100, 8, 5], 6, 4), vec![7]);
        assert_eq!(draft(&[5, 6, 7, 8, 9, 5], 6, 2), vec![7, 8]);
        assert_eq!(draft(&[1, 5, 6, 7, 1], 5, 9), vec![6, 7, 1]);
        assert_eq!(draft(&[1, 5, 6, 7, 1], 5, 0), Vec::<u32>::new());
        assert_eq!(draft(&[3, 8, 100, 8], 8, 3), Vec::<u32>::new());
    }

    #[test]
    fn no_occurrence_no_draft() {
        assert_eq!(draft(&[1, 2, 3], 4, 3), Vec::<u32>::new());
        assert_eq!(draft(&[], 4, 3), Vec::<u32>::new());
        // The last token of the context itself has nothing after it.
        assert_eq!(draft(&[4], 4, 3), Vec::<u32>::new());
    }
}
