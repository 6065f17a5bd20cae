//! Markdown, HTML, URLs, e-mail addresses and emoji: removed, or turned into what a person
//! would say.

/// Strips markdown and HTML to plain text; lines become clauses.
pub fn strip_markdown(text: &str) -> String {
    let text = drop_code_fences(text);
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || is_rule(line) {
            end_clause(&mut out);
            continue;
        }
        let line = strip_line_marker(line);
        let line = if line.starts_with('|') || line.matches('|').count() >= 2 {
            if line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
                continue; // table separator row
            }
            line.trim_matches('|').replace('|', ",")
        } else {
            line.to_string()
        };
        let line = strip_links(&line);
        let line = strip_tags(&line);
        let line = strip_emphasis(&line);
        if !out.is_empty() {
            end_clause(&mut out);
        }
        out.push_str(line.trim());
    }
    out
}

/// Ends the text so far with a sentence mark (a line without punctuation still pauses).
fn end_clause(out: &mut String) {
    let trimmed = out.trim_end();
    if trimmed.is_empty() {
        return;
    }
    let last = trimmed.chars().last().unwrap_or('.');
    out.truncate(trimmed.len());
    if !matches!(last, '.' | '!' | '?' | ',' | ';' | ':') {
        out.push('.');
    }
    out.push(' ');
}

fn drop_code_fences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        out.push_str(&rest[..open]);
        out.push('\n');
        match rest[open + 3..].find("```") {
            Some(close) => rest = &rest[open + 3 + close + 3..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_rule(line: &str) -> bool {
    line.len() >= 3
        && line
            .chars()
            .all(|c| matches!(c, '-' | '*' | '_' | '=' | ' '))
}

/// Removes a heading `#`, a quote `>`, or a list marker (`-`, `*`, `+`, `1.`, `1)`).
fn strip_line_marker(line: &str) -> &str {
    let line = line.trim_start_matches(['#', '>']).trim_start();
    for marker in ["- [ ] ", "- [x] ", "- ", "* ", "+ ", "• "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return rest.trim_start();
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && digits <= 3 {
        let rest = &line[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return r.trim_start();
        }
    }
    line
}

/// `[text](url)` → text, `![alt](url)` → alt.
fn strip_links(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let Some(close_rel) = rest[open..].find("](") else {
            break;
        };
        let close = open + close_rel;
        let Some(end_rel) = rest[close + 2..].find(')') else {
            break;
        };
        let before = rest[..open].strip_suffix('!').unwrap_or(&rest[..open]);
        out.push_str(before);
        out.push_str(&rest[open + 1..close]);
        rest = &rest[close + 2 + end_rel + 1..];
    }
    out.push_str(rest);
    out
}

/// Removes `<tags>`; a lone `<` or `>` (comparisons) is left for the symbol pass.
fn strip_tags(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let is_tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
        match after.find('>') {
            Some(close) if is_tag && !after[..close].contains('<') => {
                out.push_str(&rest[..open]);
                out.push(' ');
                rest = &after[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Removes `*`, `_`, `~`, and backticks used for emphasis or code; `snake_case` becomes words.
fn strip_emphasis(line: &str) -> String {
    line.chars()
        .map(|c| match c {
            '*' | '`' | '~' => '\u{0}',
            '_' => ' ',
            c => c,
        })
        .filter(|&c| c != '\u{0}')
        .collect()
}

/// A URL spoken as its host: `https://www.example.com/a?b` → "example dot com".
pub fn speak_url(token: &str) -> Option<String> {
    let lower = token.to_ascii_lowercase();
    let rest = ["https://", "http://", "ftp://"]
        .iter()
        .find_map(|s| lower.strip_prefix(s))
        .or_else(|| lower.starts_with("www.").then_some(lower.as_str()))?;
    let host = rest.split(['/', '?', '#', ':']).next().unwrap_or("");
    let host = host.strip_prefix("www.").unwrap_or(host);
    if host.is_empty() {
        return Some(String::new());
    }
    Some(dotted(host))
}

/// A bare domain (`example.com`, `docs.rs`) or e-mail address spoken with "dot" and "at".
pub fn speak_domain_or_email(token: &str) -> Option<String> {
    const TLDS: [&str; 14] = [
        "com", "org", "net", "io", "dev", "rs", "edu", "gov", "ai", "app", "co", "uk", "de", "us",
    ];
    if let Some((user, domain)) = token.split_once('@') {
        let ok = !user.is_empty()
            && domain.contains('.')
            && domain
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
        return ok.then(|| format!("{} at {}", dotted(user), dotted(domain)));
    }
    let (_, tld) = token.rsplit_once('.')?;
    let plain = token
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    (plain && TLDS.contains(&tld.to_ascii_lowercase().as_str()) && !token.starts_with('.'))
        .then(|| dotted(token))
}

fn dotted(s: &str) -> String {
    s.split(['.', '_', '-'])
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" dot ")
}

/// Letters a voice for a Latin-script language can say: Latin letters (with accents).
pub fn is_latin_letter(c: char) -> bool {
    c.is_ascii_alphabetic()
        || (c.is_alphabetic() && matches!(c as u32, 0x00C0..=0x024F | 0x1E00..=0x1EFF))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_stripped_to_clauses() {
        let md = "# Title\n\nSome **bold** and _it_ and `code`.\n- first item\n- second\n\n---\n1. one\n> quote";
        assert_eq!(
            strip_markdown(md),
            "Title. Some bold and  it  and code. first item. second. one. quote"
        );
    }

    #[test]
    fn code_blocks_links_tags_and_tables() {
        assert_eq!(
            strip_markdown("See:\n```\nlet x = 1;\n```\nDone."),
            "See: Done."
        );
        assert_eq!(
            strip_markdown("Read [the docs](https://x.y/z) now."),
            "Read the docs now."
        );
        assert_eq!(strip_markdown("![a cat](c.png)"), "a cat");
        assert_eq!(
            strip_markdown("a <b>bold</b> move, 3 < 4"),
            "a  bold  move, 3 < 4"
        );
        assert_eq!(
            strip_markdown("| a | b |\n|---|---|\n| 1 | 2 |"),
            "a , b. 1 , 2"
        );
        assert_eq!(strip_markdown("Open ```unclosed code"), "Open");
    }

    #[test]
    fn urls_and_addresses() {
        assert_eq!(
            speak_url("https://www.example.com/a?b=1").as_deref(),
            Some("example dot com")
        );
        assert_eq!(speak_url("hello"), None);
        assert_eq!(
            speak_domain_or_email("docs.rs").as_deref(),
            Some("docs dot rs")
        );
        assert_eq!(
            speak_domain_or_email("ann@mail.org").as_deref(),
            Some("ann at mail dot org")
        );
        assert_eq!(speak_domain_or_email("3.14"), None);
        assert_eq!(speak_domain_or_email("end.Then"), None);
    }

    #[test]
    fn latin_letters() {
        assert!(is_latin_letter('a') && is_latin_letter('é') && is_latin_letter('Ž'));
        assert!(!is_latin_letter('я') && !is_latin_letter('中') && !is_latin_letter('😀'));
    }
}
