//! The byte-level BPE merge loop on token ids: lowest merge rank first, ties to the
//! leftmost pair (llama.cpp's `llm_tokenizer_bpe_session` order).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::vocab::{Merges, NO_TOKEN};

#[derive(Debug, Clone, Copy)]
struct Symbol {
    id: u32,
    prev: usize,
    next: usize,
    alive: bool,
}

const NONE: usize = usize::MAX;

/// Reusable buffers for [`merge_word`].
#[derive(Debug, Default)]
pub struct BpeScratch {
    symbols: Vec<Symbol>,
    /// `Reverse((rank, left, right))`: pops the lowest rank, then the leftmost pair.
    queue: BinaryHeap<Reverse<(u32, usize, usize)>>,
}

impl BpeScratch {
    fn push_pair(&mut self, merges: &Merges, left: usize, right: usize) {
        if left == NONE || right == NONE {
            return;
        }
        let (l, r) = (self.symbols[left].id, self.symbols[right].id);
        if l == NO_TOKEN || r == NO_TOKEN {
            return;
        }
        if let Some((rank, _)) = merges.get(l, r) {
            self.queue.push(Reverse((rank, left, right)));
        }
    }
}

/// Merges the initial symbols `ids` (one per byte-level character; `NO_TOKEN` for a
/// character missing from the vocabulary, which never merges and is dropped) and appends the
/// resulting token ids to `out`.
pub fn merge_word(
    merges: &Merges,
    ids: impl ExactSizeIterator<Item = u32>,
    s: &mut BpeScratch,
    out: &mut Vec<u32>,
) {
    s.symbols.clear();
    s.queue.clear();
    let n = ids.len();
    s.symbols.extend(ids.enumerate().map(|(i, id)| Symbol {
        id,
        prev: if i == 0 { NONE } else { i - 1 },
        next: if i + 1 == n { NONE } else { i + 1 },
        alive: true,
    }));
    for i in 1..n {
        s.push_pair(merges, i - 1, i);
    }
    while let Some(Reverse((rank, left, right))) = s.queue.pop() {
        let (l, r) = (s.symbols[left], s.symbols[right]);
        if !l.alive || !r.alive || l.next != right {
            continue;
        }
        // Same positions but other tokens there now: a stale entry (ranks are unique per pair).
        let Some((current_rank, merged)) = merges.get(l.id, r.id) else {
            continue;
        };
        if current_rank != rank {
            continue;
        }
        s.symbols[left].id = merged;
        s.symbols[left].next = r.next;
        s.symbols[right].alive = false;
        if r.next != NONE {
            s.symbols[r.next].prev = left;
        }
        s.push_pair(merges, l.prev, left);
        s.push_pair(merges, left, r.next);
    }
    let mut i = if n == 0 { NONE } else { 0 };
    while i != NONE {
        let sym = s.symbols[i];
        if sym.id != NO_TOKEN {
            out.push(sym.id);
        }
        i = sym.next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_by_rank_then_leftmost() {
        // tokens: 0 a, 1 b, 2 c, 3 ab, 4 bc, 5 abc, 6 aa
        let mut m = Merges::with_capacity(4);
        m.insert(1, 2, 0, 4); // b c -> bc (rank 0)
        m.insert(0, 1, 1, 3); // a b -> ab (rank 1)
        m.insert(0, 4, 2, 5); // a bc -> abc
        m.insert(0, 0, 3, 6); // a a -> aa
        let mut s = BpeScratch::default();
        let run = |ids: &[u32], s: &mut BpeScratch| {
            let mut out = Vec::new();
            merge_word(&m, ids.iter().copied(), s, &mut out);
            out
        };
        assert_eq!(run(&[0, 1, 2], &mut s), [5]);
        assert_eq!(run(&[0, 1], &mut s), [3]);
        assert_eq!(run(&[0, 0, 0], &mut s), [6, 0], "leftmost pair first");
        assert_eq!(run(&[2, 0, 1, 2], &mut s), [2, 5]);
        assert_eq!(
            run(&[0, NO_TOKEN, 1], &mut s),
            [0, 1],
            "unknown characters are dropped"
        );
        assert_eq!(run(&[], &mut s), Vec::<u32>::new());
    }
}
