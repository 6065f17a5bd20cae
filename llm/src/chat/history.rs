//! Which earlier turns a conversation's model sees, and where the window moves: the policy,
//! the user turns' places in a token transcript, and how many of the oldest turns to
//! drop before a new turn so that the policy holds and the turn fits.

use std::str::FromStr;

/// Which earlier turns the model sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HistoryPolicy {
    /// Every earlier turn that fits. When the context fills, the oldest turns go at once until
    /// at most half of it is in use, so the window moves rarely.
    #[default]
    AllThatFit,
    /// At most this many earlier exchanges (a user turn and its reply); 0 = every question
    /// is asked afresh.
    LastTurns(usize),
    /// Earlier exchanges up to this many tokens, the oldest dropped first.
    Tokens(usize),
}

impl std::fmt::Display for HistoryPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HistoryPolicy::AllThatFit => write!(f, "all"),
            HistoryPolicy::LastTurns(n) => write!(f, "last:{n}"),
            HistoryPolicy::Tokens(n) => write!(f, "tokens:{n}"),
        }
    }
}

impl FromStr for HistoryPolicy {
    type Err = String;

    /// `all`, `last:N` or `tokens:N`.
    fn from_str(s: &str) -> Result<Self, String> {
        let number = |v: &str| {
            v.parse::<usize>()
                .map_err(|_| format!("history policy {s:?}: {v:?} is not a number"))
        };
        match s.split_once(':') {
            None if s == "all" => Ok(HistoryPolicy::AllThatFit),
            Some(("last", n)) => Ok(HistoryPolicy::LastTurns(number(n)?)),
            Some(("tokens", n)) => Ok(HistoryPolicy::Tokens(number(n)?)),
            _ => Err(format!(
                "history policy {s:?}: expected all, last:N or tokens:N"
            )),
        }
    }
}

/// Where each user turn starts in a token transcript: the indices whose tokens, spelled by
/// `piece`, begin with `header` (the template's user-turn header).
pub(crate) fn user_turn_starts<'a>(
    tokens: &[u32],
    header: &[u8],
    piece: impl Fn(u32) -> Option<&'a [u8]>,
) -> Vec<usize> {
    (0..tokens.len())
        .filter(|&i| spells(&tokens[i..], header, &piece))
        .collect()
}

/// Whether `tokens` begin with the text `header` (the last token may run past it).
fn spells<'a>(tokens: &[u32], header: &[u8], piece: &impl Fn(u32) -> Option<&'a [u8]>) -> bool {
    let mut rest = header;
    for &id in tokens {
        let Some(p) = piece(id).filter(|p| !p.is_empty()) else {
            return false;
        };
        if rest.len() <= p.len() {
            return p.starts_with(rest);
        }
        let Some(after) = rest.strip_prefix(p) else {
            return false;
        };
        rest = after;
    }
    false
}

/// How many of the oldest turns to drop from a transcript of `len` tokens whose user turns
/// start at `starts`, before a new turn of `incoming` tokens and a reply of up to `reserve`
/// tokens, in a context of `capacity`. `None`: the new turn does not fit even alone.
pub(crate) fn turns_to_drop(
    policy: HistoryPolicy,
    starts: &[usize],
    len: usize,
    incoming: usize,
    reserve: usize,
    capacity: usize,
) -> Option<usize> {
    let kept_len = |k: usize| match starts.get(k) {
        // Dropping turns k.. removes starts[0]..starts[k].
        Some(&at) => len - (at - starts[0]),
        None => starts.first().map_or(len, |&first| first),
    };
    let fits = |k: usize| kept_len(k) + incoming + reserve <= capacity;
    let mut k = match policy {
        HistoryPolicy::LastTurns(n) => starts.len().saturating_sub(n),
        HistoryPolicy::Tokens(budget) => (0..=starts.len())
            .find(|&k| kept_len(k) - kept_len(starts.len()) <= budget)
            .unwrap_or(starts.len()),
        HistoryPolicy::AllThatFit if fits(0) => 0,
        // Full: drop the oldest turns until at most half the context is in use.
        HistoryPolicy::AllThatFit => (0..=starts.len())
            .find(|&k| kept_len(k) + incoming <= capacity / 2)
            .unwrap_or(starts.len()),
    };
    while !fits(k) {
        if k >= starts.len() {
            return None;
        }
        k += 1;
    }
    Some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_and_print() {
        for s in ["all", "last:0", "last:3", "tokens:256"] {
            let p: HistoryPolicy = s.parse().expect(s);
            assert_eq!(p.to_string(), s);
        }
        assert!("last".parse::<HistoryPolicy>().is_err());
        assert!("tokens:x".parse::<HistoryPolicy>().is_err());
        assert!("some".parse::<HistoryPolicy>().is_err());
    }

    #[test]
    fn user_turns_are_found_by_their_header() {
        const PIECES: [&str; 8] = [
            "<|im_start|>",
            "user",
            "assistant",
            "system",
            "\n",
            "\n\nHi",
            "us",
            "er\n",
        ];
        let piece = |id: u32| PIECES.get(id as usize).map(|p| p.as_bytes());
        let header = b"<|im_start|>user\n";
        // Turns: system, user, assistant, user (header split as "us" "er\n"), user whose
        // newline merged into the content, then an unfinished header at the end.
        let t = [0, 3, 4, 0, 1, 4, 0, 2, 4, 0, 6, 7, 0, 1, 5, 0, 1];
        assert_eq!(user_turn_starts(&t, header, piece), vec![3, 9, 12]);
        // Llama 3's header: several special tokens.
        const L3: [&str; 4] = ["<|start_header_id|>", "user", "<|end_header_id|>", "\n\n"];
        let piece = |id: u32| L3.get(id as usize).map(|p| p.as_bytes());
        let header = b"<|start_header_id|>user<|end_header_id|>\n\n";
        assert_eq!(
            user_turn_starts(&[0, 1, 2, 3, 0, 1, 2], header, piece),
            vec![0]
        );
    }

    // A transcript of 100 tokens: system 0..10, turns at 10, 40, 70 (30 tokens each).
    const STARTS: [usize; 3] = [10, 40, 70];

    #[test]
    fn last_turns_and_token_budgets_keep_what_they_say() {
        let drop = |p| turns_to_drop(p, &STARTS, 100, 20, 10, 1000);
        assert_eq!(drop(HistoryPolicy::LastTurns(5)), Some(0));
        assert_eq!(drop(HistoryPolicy::LastTurns(1)), Some(2));
        assert_eq!(drop(HistoryPolicy::LastTurns(0)), Some(3));
        assert_eq!(drop(HistoryPolicy::Tokens(90)), Some(0));
        assert_eq!(drop(HistoryPolicy::Tokens(60)), Some(1));
        assert_eq!(drop(HistoryPolicy::Tokens(59)), Some(2));
        assert_eq!(drop(HistoryPolicy::Tokens(0)), Some(3));
        assert_eq!(drop(HistoryPolicy::AllThatFit), Some(0));
    }

    #[test]
    fn a_full_context_drops_to_half_at_once_and_never_the_new_turn() {
        // 100 + 20 + 10 > 120: full. Half of 120 is 60: keep system + the last turn (40).
        assert_eq!(
            turns_to_drop(HistoryPolicy::AllThatFit, &STARTS, 100, 20, 10, 120),
            Some(2)
        );
        // Any policy still drops what it must for the new turn to fit.
        assert_eq!(
            turns_to_drop(HistoryPolicy::LastTurns(3), &STARTS, 100, 20, 10, 75),
            Some(2)
        );
        // Only the system prompt and the new turn: fits in 40, not in 39.
        assert_eq!(
            turns_to_drop(HistoryPolicy::AllThatFit, &STARTS, 100, 20, 10, 40),
            Some(3)
        );
        assert_eq!(
            turns_to_drop(HistoryPolicy::AllThatFit, &STARTS, 100, 20, 10, 39),
            None
        );
        // No earlier turns at all.
        assert_eq!(
            turns_to_drop(HistoryPolicy::AllThatFit, &[], 10, 20, 10, 40),
            Some(0)
        );
        assert_eq!(
            turns_to_drop(HistoryPolicy::AllThatFit, &[], 10, 20, 10, 39),
            None
        );
    }
}
