//! `Segmenter`: turns a stream of LLM text pieces into speakable pieces — a two- or three-word
//! first phrase early, a clause next, then whole sentences — with code fences held back and
//! dropped.

use crate::abbrev::period_is_not_sentence_end;

const FENCE: &str = "```";

/// The marks a clause may end at (followed by a space): a piece may end there, and each is
/// spoken with a pause.
const CLAUSE_MARKS: [char; 5] = [',', ';', ':', '—', '–'];

/// What a clause mark adds to a piece's length against [`SegmenterConfig::max_chars`]: Piper
/// joe pauses ~0.23 s at each comma of a list, the time of ~4 characters of speech.
pub const PAUSE_BYTES: usize = 4;

/// `text`'s length against [`SegmenterConfig::max_chars`]: its bytes, and [`PAUSE_BYTES`] for
/// each clause mark followed by a space (as the segmenter counts them).
pub fn spoken_len(text: &str) -> usize {
    let mut chars = text.chars().peekable();
    let mut pauses = 0;
    while let Some(c) = chars.next() {
        pauses += usize::from(is_pause(c, chars.peek().copied()));
    }
    text.len() + PAUSE_BYTES * pauses
}

/// Whether `c`, followed by `next`, is a clause mark spoken with a pause: one of
/// [`CLAUSE_MARKS`] before whitespace (a piece may end after it).
fn is_pause(c: char, next: Option<char>) -> bool {
    CLAUSE_MARKS.contains(&c) && next.is_some_and(char::is_whitespace)
}

/// How the segmenter cuts.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmenterConfig {
    /// The first piece of a turn may end at a clause mark (`, ; : —`) once it has this many
    /// words; a sentence end always ends it.
    pub first_min_words: usize,
    /// When the first piece has this many words and still no clause mark, it ends before the
    /// next phrase-opening word (`and`, `is`, `to`, `with`, …); 0 turns this off.
    pub first_max_words: usize,
    /// The second piece may also end at a clause mark once it has this many words (0: the
    /// second piece is a whole sentence).
    pub second_min_words: usize,
    /// Like `first_max_words`, for the second piece; 0 turns this off.
    pub second_max_words: usize,
    /// No piece is longer than this (bytes, each clause mark counted as [`PAUSE_BYTES`] more
    /// for the pause it is spoken with): a longer run is cut at its last clause mark, or else
    /// before its last phrase-opening word, or else at its last space. This bounds synthesis
    /// latency on text without punctuation and the memory of one synthesis run, which grows
    /// with the audio it makes (Piper joe: ~15 MB per second of audio, ~4 s for 64 bytes; a
    /// 204-character sentence peaked 190 MB over a short one). 64 keeps nine sentences in ten
    /// whole (the 1.5B's replies in a 120-turn session), and the loop with the 1.5B under
    /// 1.5 GB (docs/PERFORMANCE.md, "Shorter Piper runs").
    pub max_chars: usize,
}

impl Default for SegmenterConfig {
    fn default() -> Self {
        SegmenterConfig {
            first_min_words: 1,
            first_max_words: 2,
            second_min_words: 3,
            second_max_words: 10,
            max_chars: 64,
        }
    }
}

/// Streaming text segmenter; one per reply (call [`Segmenter::reset`] between turns).
#[derive(Debug, Clone)]
pub struct Segmenter {
    cfg: SegmenterConfig,
    buf: String,
    emitted: usize,
    /// The first piece was cut when due (`cut_due_piece`): the model is slow, so the second
    /// piece is cut by the first piece's rule too, or the output runs dry while the model
    /// writes a whole clause behind a two-word phrase.
    slow: bool,
}

impl Segmenter {
    pub fn new(cfg: SegmenterConfig) -> Self {
        let cfg = SegmenterConfig {
            max_chars: cfg.max_chars.max(16),
            ..cfg
        };
        Segmenter {
            cfg,
            buf: String::new(),
            emitted: 0,
            slow: false,
        }
    }

    /// Adds a piece of streamed text; returns the pieces that became ready (often none).
    pub fn push(&mut self, piece: &str) -> Vec<String> {
        self.buf.push_str(piece);
        let mut out = Vec::new();
        while let Some(seg) = self.next_ready(false) {
            out.push(seg);
        }
        out
    }

    /// End of the stream: returns what is left as one piece (if anything speakable).
    pub fn flush(&mut self) -> Option<String> {
        let mut parts = Vec::new();
        while let Some(seg) = self.next_ready(true) {
            parts.push(seg);
        }
        self.reset();
        if parts.is_empty() {
            None
        } else {
            Some(parts.join(" "))
        }
    }

    /// Forgets buffered text and starts a new turn (the next piece is a short clause again).
    pub fn reset(&mut self) {
        self.buf.clear();
        self.emitted = 0;
        self.slow = false;
    }

    /// Whether text is buffered that has not been returned yet.
    pub fn has_pending(&self) -> bool {
        !self.buf.trim().is_empty()
    }

    /// The pending piece is due (the model takes long to reach a phrase boundary: the first
    /// piece a while after its first token, a later one when the audio ahead of it runs out):
    /// if it has at least two whole words and the next word has begun, it ends before that
    /// word, or before a word it would end on that leaves the phrase hanging ("The capital of"
    /// ends as "The capital"). `None` while there is no such cut yet. A first piece cut so
    /// marks the model slow: the second piece is then cut by the first piece's rule too.
    pub fn cut_due_piece(&mut self) -> Option<String> {
        let scan_end = self.buf.find(FENCE).unwrap_or(self.buf.len());
        let cut = due_cut(&self.buf[..scan_end])?;
        let first = self.emitted == 0;
        let piece = self.take(cut);
        if first {
            self.slow = piece.is_some();
        }
        piece
    }

    fn next_ready(&mut self, at_end: bool) -> Option<String> {
        loop {
            let (scan_end, fence) = match self.buf.find(FENCE) {
                Some(f) => (f, Some(f)),
                None => (self.buf.len(), None),
            };
            let lead = LeadRule::for_piece(self.emitted, self.slow, &self.cfg);
            if let Some(cut) = find_boundary(&self.buf[..scan_end], lead, self.cfg.max_chars) {
                if let Some(seg) = self.take(cut) {
                    return Some(seg);
                }
                continue;
            }
            match fence {
                Some(f) => {
                    // A code block starts: what precedes it is a piece of its own.
                    if let Some(seg) = self.take(f) {
                        return Some(seg);
                    }
                    // Drop the block once closed; hold it (or drop it at the end) while open.
                    match self.buf[FENCE.len()..].find(FENCE) {
                        Some(close) => {
                            let end = FENCE.len() + close + FENCE.len();
                            self.buf.replace_range(..end, " ");
                        }
                        None if at_end => self.buf.clear(),
                        None => return None,
                    }
                }
                None if at_end => {
                    let len = self.buf.len();
                    if len == 0 {
                        return None;
                    }
                    if let Some(seg) = self.take(len) {
                        return Some(seg);
                    }
                }
                None => return None,
            }
        }
    }

    /// Removes `buf[..cut]` and returns it trimmed, if it has anything to say.
    fn take(&mut self, cut: usize) -> Option<String> {
        let seg: String = self.buf[..cut].trim().to_string();
        self.buf.replace_range(..cut, "");
        if seg.chars().any(char::is_alphanumeric) {
            self.emitted += 1;
            Some(seg)
        } else {
            None
        }
    }
}

/// How a lead piece (the first or second of a reply) may end before its sentence does.
#[derive(Debug, Clone, Copy)]
struct LeadRule {
    /// A clause mark ends the piece once it has this many words (`usize::MAX`: never).
    clause_min_words: usize,
    /// Past this many words the piece ends before a phrase-opening word (0: never).
    max_words: usize,
}

impl LeadRule {
    /// The rule of piece `index`; `slow`: the first piece was cut when due, and the second is
    /// cut like it.
    fn for_piece(index: usize, slow: bool, cfg: &SegmenterConfig) -> LeadRule {
        let (min, max) = match index {
            0 => (cfg.first_min_words.max(1), cfg.first_max_words),
            1 if slow => (cfg.first_min_words.max(1), cfg.first_max_words),
            1 if cfg.second_min_words > 0 => (cfg.second_min_words, cfg.second_max_words),
            _ => (usize::MAX, 0),
        };
        LeadRule {
            clause_min_words: min,
            max_words: max,
        }
    }
}

/// Where the next piece ends in `text` (exclusive byte index), if it is complete yet.
fn find_boundary(text: &str, lead: LeadRule, max_chars: usize) -> Option<usize> {
    let mut words = 0usize;
    let mut in_word = false;
    let mut word_start = 0usize;
    let mut line_start = true;
    let mut word_at_line_start = false;
    let mut pauses = 0usize;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if i + PAUSE_BYTES * pauses >= max_chars {
            return Some(cut_long_run(text, i));
        }
        let next = iter.peek().map(|&(_, n)| n);
        let followed_by_space = next.is_some_and(char::is_whitespace);
        let clause_mark = is_pause(c, next);
        if clause_mark {
            pauses += 1;
        }
        if c.is_whitespace() {
            if in_word
                && lead.max_words > 0
                && words > lead.max_words
                && opens_phrase(&text[word_start..i])
            {
                return Some(word_start);
            }
            in_word = false;
            if c == '\n' {
                if text[..i].chars().any(char::is_alphanumeric) {
                    return Some(i + 1);
                }
                line_start = true;
            }
            continue;
        }
        if !in_word {
            in_word = true;
            words += 1;
            word_start = i;
            word_at_line_start = line_start;
            line_start = false;
        }
        match c {
            '.' if followed_by_space => {
                let token = text[word_start..i].trim_start_matches(['(', '"', '\'', '*', '_']);
                let list_number = word_at_line_start && token.chars().all(|d| d.is_ascii_digit());
                if !list_number && !period_is_not_sentence_end(token) {
                    return Some(i + 1);
                }
            }
            '!' | '?' | '…' if followed_by_space => return Some(i + c.len_utf8()),
            _ if clause_mark && words >= lead.clause_min_words => return Some(i + c.len_utf8()),
            _ => {}
        }
    }
    // The text ends inside a word that looks like a phrase opener: the piece ends before it
    // now, a token earlier than at the space after it. Should the word go on ("is" becoming
    // "island"), the cut is still between two words.
    if in_word && lead.max_words > 0 && words > lead.max_words && opens_phrase(&text[word_start..])
    {
        return Some(word_start);
    }
    None
}

/// Where a due first piece may end in `text`: before the word that has begun after at least
/// two whole words, backing off over words a phrase should not end on; `None` if that leaves
/// fewer than two words or the text has no begun word after them.
fn due_cut(text: &str) -> Option<usize> {
    // The last word has begun when whitespace comes before it; it may still be growing.
    let (sp, c) = text.char_indices().rev().find(|(_, c)| c.is_whitespace())?;
    let begun = sp + c.len_utf8();
    if !text[begun..].starts_with(char::is_alphanumeric) {
        return None;
    }
    // Back off from the end over whole words a phrase should not end on.
    let mut cut = begun;
    loop {
        let head = text[..cut].trim_end();
        // At least two words stay.
        head.split_whitespace().nth(1)?;
        let start = head
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        if !leaves_hanging(&head[start..]) {
            return Some(cut);
        }
        cut = start;
    }
}

/// Words a spoken phrase should not end on: phrase openers, articles, possessives.
fn leaves_hanging(word: &str) -> bool {
    const WORDS: [&str; 14] = [
        "the", "a", "an", "of", "my", "your", "his", "her", "its", "our", "their", "this", "these",
        "those",
    ];
    opens_phrase(word) || WORDS.iter().any(|w| w.eq_ignore_ascii_case(word))
}

/// Words that open a phrase (conjunctions, prepositions, auxiliary verbs): a natural place to
/// end a lead piece before them ("The capital of France | is Paris.").
fn opens_phrase(word: &str) -> bool {
    const WORDS: [&str; 51] = [
        "and", "but", "or", "so", "because", "which", "that", "who", "when", "where", "while",
        "if", "to", "for", "with", "in", "on", "at", "from", "about", "into", "than", "after",
        "before", "over", "under", "through", "across", "around", "behind", "by", "during",
        "until", "without", "since", "like", "is", "are", "was", "were", "has", "have", "had",
        "can", "could", "will", "would", "should", "may", "might", "lies",
    ];
    WORDS.iter().any(|w| w.eq_ignore_ascii_case(word))
}

/// Where an over-long run ends: after its last clause mark (one right at `limit` too), or
/// else before its last phrase-opening word, as long as that keeps a third of `limit`; else
/// before the word that crosses `limit`, or at `limit` when there is no space.
fn cut_long_run(text: &str, limit: usize) -> usize {
    let head = &text[..limit];
    let spaces = || head.char_indices().filter(|(_, c)| c.is_whitespace());
    // The space right at the bound counts for a clause: the clause before it is the piece.
    let at_limit = text[limit..].chars().next().filter(|c| c.is_whitespace());
    let clause = spaces()
        .chain(at_limit.map(|c| (limit, c)))
        .rfind(|&(sp, _)| head[..sp].ends_with(CLAUSE_MARKS));
    let opener = || {
        spaces().rfind(|&(sp, space)| {
            // The space may be wider than a byte (U+0085, U+00A0, U+3000).
            let rest = &head[sp + space.len_utf8()..];
            let next = rest.split_whitespace().next().unwrap_or("");
            rest.contains(char::is_whitespace) && opens_phrase(next)
        })
    };
    let keeps_a_third =
        |c: Option<(usize, char)>| c.map(|(sp, _)| sp).filter(|&sp| sp >= limit / 3);
    match keeps_a_third(clause).or_else(|| keeps_a_third(opener())) {
        Some(sp) => sp,
        None => match head.rfind(char::is_whitespace) {
            Some(sp) if sp > 0 => sp,
            _ => limit,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spoken_len_counts_a_pause_for_each_clause_mark_before_a_space() {
        assert_eq!(spoken_len("a, b; c"), 7 + 2 * PAUSE_BYTES);
        assert_eq!(spoken_len("1,234,567 and 3:45"), 18);
        assert_eq!(spoken_len("one, two,"), 9 + PAUSE_BYTES);
        assert_eq!(spoken_len(""), 0);
    }

    fn run(pieces: &[&str]) -> Vec<String> {
        let mut s = Segmenter::new(SegmenterConfig::default());
        let mut out = Vec::new();
        for p in pieces {
            out.extend(s.push(p));
        }
        out.extend(s.flush());
        out
    }

    /// Spaces wider than a byte (U+0085, U+00A0, U+3000) in a run too long for one piece: the
    /// cut looks past them by their width, never into them (a fuzz case panicked on U+0085).
    #[test]
    fn a_long_run_with_wide_spaces_is_cut_at_a_space() {
        for space in ['\u{85}', '\u{a0}', '\u{3000}'] {
            let words = ["word"; 30].join(&space.to_string());
            let text = format!("{words} and {words}");
            for (limit, _) in text.char_indices().skip(1) {
                let cut = cut_long_run(&text, limit);
                assert!(
                    text.is_char_boundary(cut) && cut > 0 && cut <= limit,
                    "{space:?}: limit {limit}, cut {cut}"
                );
            }
        }
    }

    #[test]
    fn first_piece_is_a_short_clause_then_sentences() {
        let toks = [
            "Sure",
            ",",
            " the",
            " weather",
            " today",
            " is",
            " sunny",
            ",",
            " with",
            " a",
            " high",
            " of",
            " 72",
            ".",
            " Tomorrow",
            ",",
            " it",
            " rains",
            ".",
            " Bring",
            " a",
            " coat",
            "!",
        ];
        let out = run(&toks);
        assert_eq!(
            out,
            vec![
                "Sure,",
                "the weather today is sunny,",
                "with a high of 72.",
                "Tomorrow, it rains.",
                "Bring a coat!"
            ]
        );
    }

    #[test]
    fn lead_pieces_end_before_a_phrase_opening_word() {
        let out = run(&[
            "The capital of France is Paris, a city on the Seine that has many old bridges and \
             parks to walk in. It is lovely.",
        ]);
        assert_eq!(
            out,
            vec![
                "The capital of France",
                "is Paris, a city on the Seine that has many old bridges",
                "and parks to walk in.",
                "It is lovely."
            ]
        );
        // Two words are the least a phrase cut leaves; the second piece may run to ten words.
        let out = run(&["Cats are loyal to their owners and to anyone who feeds them well."]);
        assert_eq!(
            out,
            vec![
                "Cats are loyal",
                "to their owners and to anyone who feeds them well."
            ]
        );
        let out = run(&["A day is a long time but a week that is made of days is longer."]);
        assert_eq!(
            out,
            vec![
                "A day",
                "is a long time but a week that is made of days",
                "is longer."
            ]
        );
        // Only the two lead pieces are cut that way.
        let out = run(&["Yes. No. The quick brown fox jumped over the lazy dog and then ran."]);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn a_phrase_opener_ends_the_lead_piece_as_soon_as_it_arrives() {
        let mut s = Segmenter::new(SegmenterConfig::default());
        for t in ["The", " capital", " of", " Greece"] {
            assert!(s.push(t).is_empty(), "{t}");
        }
        // Not at the space after "is", a token later: at "is" itself.
        assert_eq!(s.push(" is"), vec!["The capital of Greece"]);
        assert!(s.push(" Athens").is_empty());
        assert_eq!(s.flush().as_deref(), Some("is Athens"));
        // Had the word gone on, the cut is still between two words.
        let mut s = Segmenter::new(SegmenterConfig::default());
        assert_eq!(s.push("The big red is"), vec!["The big red"]);
        assert!(s.push("land").is_empty());
        assert_eq!(s.flush().as_deref(), Some("island"));
    }

    #[test]
    fn a_due_piece_ends_at_the_next_word_but_not_on_a_hanging_one() {
        let mut s = Segmenter::new(SegmenterConfig::default());
        assert!(s.push("Seven times").is_empty());
        // One whole word before the one that may still grow: too short.
        assert_eq!(s.cut_due_piece(), None);
        assert!(s.push(" eight equ").is_empty());
        assert_eq!(s.cut_due_piece().as_deref(), Some("Seven times eight"));
        // The second piece then ends like a first one: at the next phrase opener.
        assert!(s.push("als fifty six").is_empty());
        assert_eq!(s.push(" and"), vec!["equals fifty six"]);
        assert_eq!(s.flush().as_deref(), Some("and"));
        // "of" (and "the" before it) would leave the phrase hanging: the piece ends before.
        let mut s = Segmenter::new(SegmenterConfig::default());
        s.push("The capital of the Gr");
        assert_eq!(s.cut_due_piece().as_deref(), Some("The capital"));
        // Fewer than two words that end well: no cut yet.
        let mut s = Segmenter::new(SegmenterConfig::default());
        s.push("In the ci");
        assert_eq!(s.cut_due_piece(), None);
        s.push("ty");
        assert_eq!(s.cut_due_piece(), None);
        s.push(" of Lo");
        assert_eq!(s.cut_due_piece().as_deref(), Some("In the city"));
        // Not before punctuation.
        let mut s = Segmenter::new(SegmenterConfig::default());
        s.push("Fifty six (");
        assert_eq!(s.cut_due_piece(), None);
    }

    #[test]
    fn a_due_later_piece_is_cut_the_same_way_and_the_rules_go_on_after_it() {
        // A short first phrase, then a sentence the model is slow to finish.
        let mut s = Segmenter::new(SegmenterConfig::default());
        assert_eq!(s.push("We are in"), vec!["We are"]);
        assert!(s.push(" the same family for").is_empty());
        assert_eq!(s.cut_due_piece().as_deref(), Some("in the same family"));
        assert_eq!(s.cut_due_piece(), None, "one begun word: nothing to cut");
        // Not cut when due, the model was fast: the next piece is a whole sentence again.
        assert!(s.push(" ten years, and counting").is_empty());
        assert_eq!(s.push(". So"), vec!["for ten years, and counting."]);
    }

    #[test]
    fn first_piece_comes_before_the_sentence_ends() {
        let cfg = SegmenterConfig {
            first_min_words: 3,
            first_max_words: 0,
            ..SegmenterConfig::default()
        };
        let mut s = Segmenter::new(cfg);
        assert!(s.push("Well, I think that").is_empty());
        assert_eq!(s.push(" you, my friend,"), vec!["Well, I think that you,"]);
        let mut s = Segmenter::new(SegmenterConfig::default());
        assert_eq!(s.push("Well, I think"), vec!["Well,"]);
    }

    #[test]
    fn periods_inside_numbers_and_abbreviations_do_not_cut() {
        let out = run(&["Dr. Smith paid $3.50 for e.g. tea. Then he left."]);
        assert_eq!(
            out,
            vec!["Dr. Smith paid $3.50", "for e.g. tea.", "Then he left."]
        );
    }

    #[test]
    fn a_trailing_period_waits_for_the_next_piece() {
        let mut s = Segmenter::new(SegmenterConfig::default());
        assert!(s.push("It costs 3.").is_empty());
        assert!(s.push("5 dollars").is_empty());
        assert_eq!(s.flush().as_deref(), Some("It costs 3.5 dollars"));
    }

    #[test]
    fn code_fences_are_held_and_dropped() {
        let out = run(&[
            "Here is code:\n```rust\nfn main() { println!(\"hi. there\"); }\n",
            "```\nThat prints hi. Done.",
        ]);
        assert_eq!(out, vec!["Here is code:", "That prints hi.", "Done."]);
        // An unclosed fence is dropped at the end.
        assert_eq!(run(&["Look. ```py\nx = 1. y = 2. "]), vec!["Look."]);
    }

    #[test]
    fn newlines_and_list_items_are_boundaries() {
        let out = run(&["Steps:\n1. Open the lid\n2. Pour the water\n\nDone"]);
        assert_eq!(
            out,
            vec!["Steps:", "1. Open the lid", "2. Pour the water", "Done"]
        );
    }

    #[test]
    fn long_text_without_punctuation_is_cut_in_bounded_pieces() {
        let text = "word ".repeat(2000);
        let out = run(&[&text]);
        assert!(out.len() > 30);
        assert!(out.iter().all(|p| p.len() <= 64 && !p.is_empty()));
        let spaceless = "x".repeat(1000);
        let out = run(&[&spaceless]);
        assert!(out.iter().all(|p| p.len() <= 64));
        assert_eq!(out.concat().len(), 1000);
    }

    #[test]
    fn a_long_sentence_is_cut_at_a_clause_mark_or_before_a_phrase() {
        // Past the two lead pieces, a piece is a whole sentence unless it runs over 64 bytes.
        let out = run(&[
            "Yes. No. It is a gas giant more than eleven times wider than the Earth, with a great \
             red spot that is a storm raging for centuries now. The red spot is a storm that has \
             been raging for hundreds of years and is bigger than our whole planet so it would \
             swallow the Earth.",
        ]);
        assert_eq!(
            out,
            vec![
                "Yes.",
                "No.",
                "It is a gas giant more than eleven times wider than the Earth,",
                "with a great red spot that is a storm raging for centuries now.",
                "The red spot is a storm that has been raging",
                "for hundreds of years and is bigger than our whole planet",
                "so it would swallow the Earth."
            ]
        );
    }

    #[test]
    fn a_list_counts_its_pauses_and_is_cut_at_a_comma() {
        // 84 bytes with seven commas: spoken with a pause at each, so it is cut sooner than
        // its bytes alone say, at the comma before the bound.
        let list =
            "The planets are Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus, and Neptune.";
        let out = run(&["Yes. No. ", list]);
        assert_eq!(
            out,
            vec![
                "Yes.",
                "No.",
                "The planets are Mercury, Venus, Earth, Mars,",
                "Jupiter, Saturn, Uranus, and Neptune."
            ]
        );
        // The same words without commas run to the byte bound.
        let plain = "The planets are Mercury Venus Earth Mars Jupiter Saturn Uranus and Neptune.";
        let out = run(&["Yes. No. ", plain]);
        assert_eq!(
            out[2],
            "The planets are Mercury Venus Earth Mars Jupiter Saturn Uranus"
        );
    }

    #[test]
    fn reset_starts_a_new_turn_and_symbols_are_not_pieces() {
        let mut s = Segmenter::new(SegmenterConfig::default());
        assert!(s.push("One two three four, five").len() == 1);
        s.reset();
        assert!(!s.has_pending());
        assert_eq!(s.push("Aa bb cc dd, ee, ff"), vec!["Aa bb cc dd,"]);
        assert_eq!(run(&["*** --- !!! "]), Vec::<String>::new());
        assert_eq!(run(&[""]), Vec::<String>::new());
    }
}
