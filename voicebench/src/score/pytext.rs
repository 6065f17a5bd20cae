//! Python's `str.strip()` and `str.split()` whitespace, which VoiceBench's rules use: Rust's
//! `trim`/`split_whitespace` follow Unicode White_Space, which leaves out the four ASCII
//! separators U+001C-U+001F that Python counts as space.

/// Python's `str.isspace()` for one character.
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `s.strip()`.
pub(crate) fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// `s.split()`: the words between runs of Python whitespace.
pub(crate) fn py_split(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_py_space).filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_separators_are_space_as_in_python() {
        assert_eq!(py_strip("\u{1f} b. \u{85}"), "b.");
        assert_eq!(
            py_split("a\u{1c}b  c\u{3000}d").collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
        assert_eq!(py_strip("\u{200b}x"), "\u{200b}x");
    }
}
