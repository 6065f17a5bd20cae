//! Edit distance (Levenshtein: substitutions, deletions and insertions, each one) between two
//! sequences: of words for a word error rate, of letters for comparing two spellings.

/// The fewest substitutions, deletions and insertions that turn `a` into `b`.
pub fn edit_distance<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let next = (diag + usize::from(x != y))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_substitutions_deletions_and_insertions() {
        let c = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(edit_distance(&c("kitten"), &c("sitting")), 3);
        assert_eq!(edit_distance(&c(""), &c("abc")), 3);
        assert_eq!(edit_distance(&c("abc"), &c("")), 3);
        assert_eq!(edit_distance(&c("same"), &c("same")), 0);
        assert_eq!(edit_distance(&["a", "b", "c"], &["a", "x", "c", "d"]), 2);
    }
}
