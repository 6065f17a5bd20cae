//! Numbers as English words: cardinals, ordinals, years, decimals, digit strings.

const ONES: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 10] = [
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];
const SCALES: [(u64, &str); 5] = [
    (1_000_000_000_000_000, "quadrillion"),
    (1_000_000_000_000, "trillion"),
    (1_000_000_000, "billion"),
    (1_000_000, "million"),
    (1_000, "thousand"),
];

/// Largest integer spoken as a cardinal; longer digit runs are read digit by digit.
pub const MAX_CARDINAL: u64 = 999_999_999_999_999_999;

fn below_thousand(n: u64, out: &mut String) {
    debug_assert!(n < 1000);
    let (h, rest) = (n / 100, n % 100);
    if h > 0 {
        push_word(out, ONES[h as usize]);
        push_word(out, "hundred");
    }
    if rest > 0 {
        if rest < 20 {
            push_word(out, ONES[rest as usize]);
        } else {
            let (t, o) = (rest / 10, rest % 10);
            if o == 0 {
                push_word(out, TENS[t as usize]);
            } else {
                push_word(out, &format!("{}-{}", TENS[t as usize], ONES[o as usize]));
            }
        }
    }
}

fn push_word(out: &mut String, w: &str) {
    if !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
    out.push_str(w);
}

/// `1234` → "one thousand two hundred thirty-four".
pub fn cardinal(n: u64) -> String {
    if n == 0 {
        return "zero".into();
    }
    if n > MAX_CARDINAL {
        return digits(&n.to_string());
    }
    let mut out = String::new();
    let mut rest = n;
    for (scale, name) in SCALES {
        if rest >= scale {
            below_thousand(rest / scale, &mut out);
            push_word(&mut out, name);
            rest %= scale;
        }
    }
    if rest > 0 {
        below_thousand(rest, &mut out);
    }
    out
}

/// `21` → "twenty-first".
pub fn ordinal(n: u64) -> String {
    let words = cardinal(n);
    let (head, last) = match words.rfind([' ', '-']) {
        Some(i) => words.split_at(i + 1),
        None => ("", words.as_str()),
    };
    let last = match last {
        "one" => "first".to_string(),
        "two" => "second".into(),
        "three" => "third".into(),
        "five" => "fifth".into(),
        "eight" => "eighth".into(),
        "nine" => "ninth".into(),
        "twelve" => "twelfth".into(),
        w if w.ends_with('y') => format!("{}ieth", &w[..w.len() - 1]),
        w => format!("{w}th"),
    };
    format!("{head}{last}")
}

/// A four-digit year the way people say it: 1999 → "nineteen ninety-nine", 2005 → "two
/// thousand five", 2024 → "twenty twenty-four", 1900 → "nineteen hundred".
pub fn year(n: u64) -> String {
    if !(1000..=9999).contains(&n) {
        return cardinal(n);
    }
    let (hi, lo) = (n / 100, n % 100);
    if (2000..2010).contains(&n) || hi % 10 == 0 && lo == 0 {
        return cardinal(n);
    }
    let hi_words = cardinal(hi);
    match lo {
        0 => format!("{hi_words} hundred"),
        1..=9 => format!("{hi_words} oh {}", ONES[lo as usize]),
        _ => format!("{hi_words} {}", cardinal(lo)),
    }
}

/// Each digit as a word: "007" → "zero zero seven".
pub fn digits(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            push_word(&mut out, ONES[d as usize]);
        }
    }
    out
}

/// A number as written (`1,234.56`, `-3`, `.5`): integer part as a cardinal, fraction digit by
/// digit ("one thousand two hundred thirty-four point five six").
pub fn decimal(text: &str) -> String {
    let (neg, body) = match text.strip_prefix(['-', '−']) {
        Some(b) => (true, b),
        None => (false, text),
    };
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let int_digits: String = int.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if neg {
        out.push_str("minus ");
    }
    if int_digits.is_empty() {
        out.push_str("zero");
    } else if int_digits.len() > 1 && int_digits.starts_with('0') || int_digits.len() > 18 {
        out.push_str(&digits(&int_digits));
    } else {
        let n = int_digits.parse::<u64>().unwrap_or(0);
        out.push_str(&cardinal(n));
    }
    if let Some(f) = frac.filter(|f| !f.is_empty()) {
        out.push_str(" point ");
        out.push_str(&digits(f));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cardinals() {
        assert_eq!(cardinal(0), "zero");
        assert_eq!(cardinal(7), "seven");
        assert_eq!(cardinal(42), "forty-two");
        assert_eq!(cardinal(100), "one hundred");
        assert_eq!(cardinal(1234), "one thousand two hundred thirty-four");
        assert_eq!(cardinal(2_000_017), "two million seventeen");
        assert_eq!(cardinal(1_000_000_000_000), "one trillion");
        assert_eq!(cardinal(u64::MAX).split(' ').count(), 20);
    }

    #[test]
    fn ordinals() {
        assert_eq!(ordinal(1), "first");
        assert_eq!(ordinal(2), "second");
        assert_eq!(ordinal(3), "third");
        assert_eq!(ordinal(12), "twelfth");
        assert_eq!(ordinal(20), "twentieth");
        assert_eq!(ordinal(21), "twenty-first");
        assert_eq!(ordinal(100), "one hundredth");
        assert_eq!(ordinal(1005), "one thousand fifth");
    }

    #[test]
    fn years() {
        assert_eq!(year(1999), "nineteen ninety-nine");
        assert_eq!(year(2024), "twenty twenty-four");
        assert_eq!(year(2005), "two thousand five");
        assert_eq!(year(1905), "nineteen oh five");
        assert_eq!(year(1900), "nineteen hundred");
        assert_eq!(year(2000), "two thousand");
    }

    #[test]
    fn decimals_and_digits() {
        assert_eq!(decimal("3.14"), "three point one four");
        assert_eq!(decimal("-5"), "minus five");
        assert_eq!(decimal("1,234"), "one thousand two hundred thirty-four");
        assert_eq!(decimal(".5"), "zero point five");
        assert_eq!(decimal("007"), "zero zero seven");
        assert_eq!(digits("1a2"), "one two");
    }
}
