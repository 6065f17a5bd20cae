//! Text normalization for speech: what a person would read aloud, with no symbol left for the
//! voice to spell out.
//!
//! Markdown, code, HTML, URLs, emoji and letters of scripts the voice cannot say are removed or
//! spoken sensibly; numbers, ordinals, money, percentages, times, dates, units and common
//! abbreviations become words. The output holds only Latin letters, spaces, in-word `'`/`-`,
//! and the clause marks `. , ! ? ; :`.

mod markup;
pub mod numbers;
mod units;

use crate::abbrev;
use markup::{is_latin_letter, speak_domain_or_email, speak_url, strip_markdown};
use numbers::{cardinal, decimal, digits, ordinal, year};
use units::{MONTHS, SCALE_WORDS, currency, is_month, unit};

/// Normalizes one piece of text for speech.
pub fn normalize(text: &str) -> String {
    let plain = strip_markdown(text);
    let tokens: Vec<&str> = plain.split_whitespace().collect();
    let mut out = Spoken::default();
    let mut i = 0;
    while i < tokens.len() {
        let next = tokens.get(i + 1).copied();
        let consumed = speak_token(tokens[i], next, i + 1 == tokens.len(), &mut out);
        i += consumed.max(1);
    }
    out.finish()
}

/// The spoken text being built: words, then clause marks attached to the last word.
#[derive(Default)]
struct Spoken {
    text: String,
    last_word: String,
}

impl Spoken {
    /// Appends words; a comma inside (`January first, twenty twenty`) becomes a clause mark.
    fn word(&mut self, w: &str) {
        for (k, part) in w.split(',').enumerate() {
            if k > 0 {
                self.mark(',');
            }
            self.one_word(part);
        }
    }

    fn one_word(&mut self, w: &str) {
        let w = clean_word(w);
        if w.is_empty() {
            return;
        }
        if !self.text.is_empty() {
            self.text.push(' ');
        }
        self.text.push_str(&w);
        self.last_word = w.rsplit(' ').next().unwrap_or("").to_string();
    }

    fn mark(&mut self, c: char) {
        let Some(last) = self.text.chars().last() else {
            return; // no clause mark before any word
        };
        if matches!(last, '.' | ',' | '!' | '?' | ';' | ':') {
            // A stronger mark replaces a weaker one: "word,." → "word."
            if rank(c) > rank(last) {
                self.text.pop();
                self.text.push(c);
            }
            return;
        }
        self.text.push(c);
    }

    fn finish(self) -> String {
        let mut t = self.text;
        // A piece that starts with a mark or ends with a comma reads badly.
        while t.ends_with([',', ';', ':']) {
            t.pop();
        }
        t
    }
}

fn rank(c: char) -> u8 {
    match c {
        ',' => 1,
        ';' | ':' => 2,
        '.' => 3,
        '!' | '?' => 4,
        _ => 0,
    }
}

/// Keeps Latin letters and in-word apostrophes/hyphens; any digit left is read digit by digit.
fn clean_word(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    let chars: Vec<char> = w.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        let prev_letter = k > 0 && is_latin_letter(chars[k - 1]);
        let next_letter = chars.get(k + 1).is_some_and(|&n| is_latin_letter(n));
        if is_latin_letter(c) {
            out.push(c);
        } else if c == ' ' {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
        } else if matches!(c, '\'' | '’') && prev_letter && next_letter {
            out.push('\'');
        } else if c == '-' && prev_letter && next_letter {
            out.push('-');
        } else if c.is_ascii_digit() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            out.push_str(&digits(&c.to_string()));
            out.push(' ');
        } else if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim().to_string()
}

/// Speaks one whitespace-separated token (plus, sometimes, the next one); returns how many
/// tokens it used.
fn speak_token(token: &str, next: Option<&str>, is_last: bool, out: &mut Spoken) -> usize {
    let (prefix, core, suffix) = split_punct(token);
    if prefix.contains(['(', '[', '{']) {
        out.mark(',');
    }
    let mut used = 1;
    if !core.is_empty() {
        let next_core = next.map(split_punct).filter(|(p, _, _)| p.is_empty());
        let next_word = next_core.map(|(_, c, _)| c);
        // Does the period after this token belong to an abbreviation?
        let is_abbrev = suffix.starts_with('.') && abbrev::expand(core).is_some();
        // Its period is dropped unless it also ends the text (or is "etc.", which usually does).
        let abbrev_period = is_abbrev && !is_last && !core.eq_ignore_ascii_case("etc");
        let spoken = speak_core(core, next_word, &out.last_word, is_abbrev);
        out.word(&spoken.words);
        if spoken.used_next {
            used = 2;
            if let Some((_, _, next_suffix)) = next_core {
                marks(next_suffix, out);
            }
            return used;
        }
        let suffix = if abbrev_period { &suffix[1..] } else { suffix };
        marks(suffix, out);
    } else {
        // Punctuation or symbols alone.
        match token {
            "&" => out.word("and"),
            "+" => out.word("plus"),
            "=" => out.word("equals"),
            "<" => out.word("less than"),
            ">" => out.word("greater than"),
            "~" => out.word("about"),
            "@" => out.word("at"),
            "-" | "—" | "–" | "--" => out.mark(','),
            _ => marks(suffix, out),
        }
    }
    if suffix.contains([')', ']', '}']) {
        out.mark(',');
    }
    used
}

/// Appends the clause marks of a token's trailing punctuation.
fn marks(suffix: &str, out: &mut Spoken) {
    for c in suffix.chars() {
        match c {
            '.' | '…' => out.mark('.'),
            '!' => out.mark('!'),
            '?' => out.mark('?'),
            ',' | '—' | '–' => out.mark(','),
            ';' => out.mark(';'),
            ':' => out.mark(':'),
            _ => {}
        }
    }
}

/// Splits leading quotes/brackets and trailing punctuation off a token.
fn split_punct(token: &str) -> (&str, &str, &str) {
    const LEAD: &[char] = &['"', '\'', '(', '[', '{', '“', '‘', '«', '¿', '¡'];
    const TRAIL: &[char] = &[
        '"', '\'', ')', ']', '}', '”', '’', '»', '.', ',', '!', '?', ';', ':', '…', '—', '–',
    ];
    let start = token.len() - token.trim_start_matches(LEAD).len();
    let body = &token[start..];
    let core = body.trim_end_matches(TRAIL);
    (&token[..start], core, &body[core.len()..])
}

struct Said {
    words: String,
    used_next: bool,
}

fn said(words: String) -> Said {
    Said {
        words,
        used_next: false,
    }
}

/// A token's core (no surrounding punctuation) as words.
fn speak_core(core: &str, next: Option<&str>, prev_word: &str, abbrev_period: bool) -> Said {
    if let Some(w) = speak_url(core).or_else(|| speak_domain_or_email(core)) {
        return said(w);
    }
    if abbrev_period {
        let lower = core.to_ascii_lowercase();
        if lower == "st" {
            let saint = next.is_some_and(|n| n.starts_with(|c: char| c.is_uppercase()));
            return said(if saint { "Saint" } else { "Street" }.into());
        }
        if let Some(w) = abbrev::expand(core) {
            return said(w.into());
        }
    }
    if let Some(s) = money(core, next) {
        return s;
    }
    if let Some(w) = time(core, next) {
        return w;
    }
    if let Some(w) = date(core) {
        return said(w);
    }
    if let Some(rest) = core.strip_prefix('#')
        && is_number(rest)
    {
        return said(format!("number {}", decimal(rest)));
    }
    if let Some(w) = ordinal_token(core) {
        return said(w);
    }
    if let Some(s) = number_with_unit(core, next, prev_word) {
        return s;
    }
    said(symbols_to_words(core))
}

fn is_number(s: &str) -> bool {
    let body = s.strip_prefix(['-', '−']).unwrap_or(s);
    let mut seen_digit = false;
    let mut dots = 0;
    for c in body.chars() {
        match c {
            '0'..='9' => seen_digit = true,
            ',' if seen_digit => {}
            '.' => dots += 1,
            _ => return false,
        }
    }
    seen_digit && dots <= 1 && !body.ends_with([',', '.'])
}

/// `$3.50` → "three dollars and fifty cents"; `$2 million` / `$2M` → "two million dollars".
fn money(core: &str, next: Option<&str>) -> Option<Said> {
    let mut chars = core.chars();
    let first = chars.next()?;
    let (symbol, amount) = if currency(first).is_some() {
        (first, chars.as_str())
    } else {
        let last = core.chars().last()?;
        currency(last)?;
        (last, &core[..core.len() - last.len_utf8()])
    };
    let (one, many, cent_one, cent_many) = currency(symbol)?;
    let (amount, attached_scale) =
        match amount.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
            Some((k, _)) => (
                &amount[..k],
                unit(&amount[k..], false).filter(|u| SCALE_WORDS.contains(u)),
            ),
            None => (amount, None),
        };
    if !is_number(amount) {
        return None;
    }
    let next_scale = next.filter(|n| SCALE_WORDS.contains(&n.to_ascii_lowercase().as_str()));
    if let Some(scale) = attached_scale.or(next_scale.map(|_| "")) {
        let scale = if scale.is_empty() {
            next_scale.unwrap_or("")
        } else {
            scale
        };
        return Some(Said {
            words: format!("{} {} {many}", decimal(amount), scale.to_ascii_lowercase()),
            used_next: attached_scale.is_none(),
        });
    }
    let clean: String = amount.chars().filter(|c| *c != ',').collect();
    let (int, frac) = clean.split_once('.').unwrap_or((&clean, ""));
    let whole: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let cents: u64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<u64>().ok()? * 10,
        2 => frac.parse().ok()?,
        _ => return Some(said(format!("{} {many}", decimal(amount)))),
    };
    let mut words = String::new();
    if whole > 0 || cents == 0 {
        words = format!(
            "{} {}",
            cardinal(whole),
            if whole == 1 { one } else { many }
        );
    }
    if cents > 0 && !cent_one.is_empty() {
        if !words.is_empty() {
            words.push_str(" and ");
        }
        words.push_str(&format!(
            "{} {}",
            cardinal(cents),
            if cents == 1 { cent_one } else { cent_many }
        ));
    }
    Some(said(words))
}

/// `3:30`, `3:30pm`, `10:00 a.m.` → "three thirty p m", "ten a m", "ten o'clock".
fn time(core: &str, next: Option<&str>) -> Option<Said> {
    let lower = core.to_ascii_lowercase();
    let (clock, attached) = match lower
        .strip_suffix("am")
        .or_else(|| lower.strip_suffix("a.m"))
    {
        Some(c) => (c.to_string(), Some("ay em")),
        None => match lower
            .strip_suffix("pm")
            .or_else(|| lower.strip_suffix("p.m"))
        {
            Some(c) => (c.to_string(), Some("pee em")),
            None => (lower.clone(), None),
        },
    };
    let next_ampm = next.and_then(|n| match n.to_ascii_lowercase().trim_end_matches('.') {
        "am" | "a.m" => Some("ay em"),
        "pm" | "p.m" => Some("pee em"),
        _ => None,
    });
    let (h, m) = match clock.split_once(':') {
        Some((h, m)) => (h, Some(m)),
        // "7pm": hours only, needs the am/pm.
        None if attached.is_some() => (clock.as_str(), None),
        None => return None,
    };
    let hour: u64 = h.parse().ok().filter(|&h| h <= 24)?;
    let minutes = match m {
        Some(m) => {
            let m = m.split(':').next()?;
            if m.len() != 2 {
                return None;
            }
            Some(m.parse::<u64>().ok().filter(|&m| m < 60)?)
        }
        None => None,
    };
    let ampm = attached.or(next_ampm);
    let mut words = cardinal(hour);
    match minutes {
        Some(0) | None if ampm.is_none() => words.push_str(" o'clock"),
        Some(0) | None => {}
        Some(m) if m < 10 => words.push_str(&format!(" oh {}", cardinal(m))),
        Some(m) => words.push_str(&format!(" {}", cardinal(m))),
    }
    if let Some(a) = ampm {
        words.push(' ');
        words.push_str(a);
    }
    Some(Said {
        words,
        used_next: attached.is_none() && next_ampm.is_some(),
    })
}

/// `2024-01-15` and `1/15/2024` → "January fifteenth, twenty twenty-four".
fn date(core: &str) -> Option<String> {
    let parts: Vec<&str> = core.split(['-', '/']).collect();
    if parts.len() != 3
        || !parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let nums: Vec<u64> = parts.iter().map(|p| p.parse().unwrap_or(0)).collect();
    let (y, m, d) = if core.contains('-') && parts[0].len() == 4 {
        (nums[0], nums[1], nums[2])
    } else if core.contains('/') && (parts[2].len() == 4 || parts[2].len() == 2) {
        let y = if parts[2].len() == 2 {
            2000 + nums[2]
        } else {
            nums[2]
        };
        (y, nums[0], nums[1])
    } else {
        return None;
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(format!(
        "{} {}, {}",
        MONTHS[m as usize - 1],
        ordinal(d),
        year(y)
    ))
}

/// `1st`, `22nd`, `3rd`, `4th` → words.
fn ordinal_token(core: &str) -> Option<String> {
    let lower = core.to_ascii_lowercase();
    let digits_end = lower.find(|c: char| !c.is_ascii_digit())?;
    let (n, suffix) = lower.split_at(digits_end);
    if n.is_empty() || n.len() > 18 || !matches!(suffix, "st" | "nd" | "rd" | "th") {
        return None;
    }
    Some(ordinal(n.parse().ok()?))
}

/// Plain numbers, ranges, decades, and numbers with a unit attached or following.
fn number_with_unit(core: &str, next: Option<&str>, prev_word: &str) -> Option<Said> {
    // Ranges: "10-20" → "ten to twenty".
    if let Some((a, b)) = core.split_once(['-', '–'])
        && is_number(a)
        && is_number(b)
        && !a.is_empty()
    {
        let a_words = plain_number(a, prev_word, true);
        let b_words = plain_number(b, prev_word, true);
        return Some(said(format!("{a_words} to {b_words}")));
    }
    let num_end = core
        .char_indices()
        .find(|&(k, c)| {
            !(c.is_ascii_digit() || c == ',' || c == '.' || (k == 0 && (c == '-' || c == '−')))
        })
        .map_or(core.len(), |(k, _)| k);
    let (num, rest) = core.split_at(num_end);
    if !is_number(num) {
        return None;
    }
    let one = matches!(num.trim_start_matches('-'), "1" | "1.0");
    if rest.is_empty() {
        if let Some(u) = next.and_then(|n| unit(n, one)) {
            return Some(Said {
                words: format!("{} {u}", decimal(num)),
                used_next: true,
            });
        }
        return Some(said(plain_number(num, prev_word, false)));
    }
    // Decades: "1990s" → "nineteen nineties", "80s" → "eighties".
    if rest == "s" && num.ends_with('0') && !num.contains(['.', ',']) {
        let n: u64 = num.parse().ok()?;
        let words = if num.len() == 4 { year(n) } else { cardinal(n) };
        let plural = match words.strip_suffix('y') {
            Some(stem) => format!("{stem}ies"),
            None => format!("{words}s"),
        };
        return Some(said(plural));
    }
    let u = unit(rest, one)?;
    Some(said(format!("{} {u}", decimal(num))))
}

/// A number alone: a year when it looks like one, else a cardinal/decimal.
fn plain_number(num: &str, prev_word: &str, in_range: bool) -> String {
    let plain_digits = num.chars().all(|c| c.is_ascii_digit());
    if plain_digits && num.len() <= 2 && is_month(prev_word) {
        let d: u64 = num.parse().unwrap_or(0);
        if (1..=31).contains(&d) {
            return ordinal(d);
        }
    }
    if plain_digits && num.len() == 4 {
        let n: u64 = num.parse().unwrap_or(0);
        if (1100..=2099).contains(&n)
            && (in_range || !(2000..2010).contains(&n) || is_month(prev_word))
        {
            return year(n);
        }
    }
    decimal(num)
}

/// Words with symbols inside: `and/or`, `R&D`, `C++`, `a+b=c`, `x@y`.
fn symbols_to_words(core: &str) -> String {
    let mut out = String::with_capacity(core.len() + 8);
    let mut chars = core.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '&' => out.push_str(" and "),
            '+' => out.push_str(" plus "),
            '=' => out.push_str(" equals "),
            '@' => out.push_str(" at "),
            '%' => out.push_str(" percent "),
            '×' => out.push_str(" times "),
            '°' => out.push_str(" degrees "),
            '→' => out.push_str(" to "),
            '0'..='9' => {
                // A number inside a word ("mp3", "x2"): read as a number.
                let mut num = String::from(c);
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_digit() {
                        num.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(' ');
                out.push_str(&decimal(&num));
                out.push(' ');
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
