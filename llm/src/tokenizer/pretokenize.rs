//! Pre-tokenizers: split text into words before BPE, exactly as llama.cpp's hand-written
//! matchers for the GPT-2, Llama-3 and Qwen2 regexes do (including their lookahead
//! `\s+(?!\S)`), so token ids match llama.cpp's.

use super::unicode::Flags;

/// The splitting rules of a vocabulary (`tokenizer.ggml.pre`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreTokenizer {
    /// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)` (gpt-2).
    Gpt2,
    /// Every `\p{N}` on its own first, then [`Gpt2`](Self::Gpt2) (smollm, starcoder).
    DigitsThenGpt2,
    /// `(?i:'s|...)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`.
    Llama3,
    /// As [`Llama3`](Self::Llama3) with single digits: `\p{N}` (qwen2).
    Qwen2,
}

impl PreTokenizer {
    /// The pre-tokenizer for a `tokenizer.ggml.pre` name, with llama.cpp's flags for it:
    /// `(pre-tokenizer, ignore_merges, add_bos default)`.
    pub fn from_name(name: &str) -> Option<(Self, bool, bool)> {
        Some(match name {
            "smollm" | "starcoder" | "refact" | "command-r" | "codeshell" | "exaone"
            | "minerva-7b" => (Self::DigitsThenGpt2, false, false),
            "gpt-2" | "phi-2" | "mpt" | "olmo" | "jais" | "exaone4" | "roberta-bpe" => {
                (Self::Gpt2, false, false)
            }
            "llama3" | "llama-v3" | "llama-bpe" | "falcon3" | "pixtral" => {
                (Self::Llama3, true, true)
            }
            "dbrx" | "smaug-bpe" => (Self::Llama3, false, false),
            "qwen2" | "deepseek-r1-qwen" | "stablelm2" | "megrez" | "hunyuan" | "grok-2" => {
                (Self::Qwen2, false, false)
            }
            _ => return None,
        })
    }

    /// Splits `text` into words, appending their byte ranges `(start, end)` to `out`.
    /// `scratch` is reused between calls to avoid allocation.
    pub fn split(
        self,
        text: &str,
        scratch: &mut Vec<(usize, char, Flags)>,
        out: &mut Vec<(usize, usize)>,
    ) {
        scratch.clear();
        scratch.extend(text.char_indices().map(|(i, c)| (i, c, Flags::of(c))));
        let cps = Cps {
            cps: scratch,
            text_len: text.len(),
        };
        match self {
            Self::Gpt2 => gpt2(&cps, 0, cps.cps.len(), out),
            Self::DigitsThenGpt2 => {
                let mut start = 0;
                for (i, &(_, _, f)) in cps.cps.iter().enumerate() {
                    if f.is_number() {
                        gpt2(&cps, start, i, out);
                        out.push(cps.range(i, i + 1));
                        start = i + 1;
                    }
                }
                gpt2(&cps, start, cps.cps.len(), out);
            }
            Self::Llama3 => llama3_like(&cps, 3, out),
            Self::Qwen2 => llama3_like(&cps, 1, out),
        }
    }
}

/// Code points of the text with their byte offsets and classes.
struct Cps<'a> {
    cps: &'a [(usize, char, Flags)],
    text_len: usize,
}

impl Cps<'_> {
    fn range(&self, from: usize, to: usize) -> (usize, usize) {
        let byte = |i: usize| self.cps.get(i).map_or(self.text_len, |c| c.0);
        (byte(from), byte(to))
    }
}

/// One bounded segment `[ini, end)` of code points with llama.cpp's accessors: outside the
/// segment a code point is `None` and its flags are empty.
struct Segment<'a, 'b> {
    cps: &'a Cps<'b>,
    ini: usize,
    end: usize,
    prev_end: usize,
}

impl Segment<'_, '_> {
    fn cpt(&self, pos: usize) -> Option<char> {
        (self.ini <= pos && pos < self.end).then(|| self.cps.cps[pos].1)
    }
    fn flags(&self, pos: usize) -> Flags {
        if self.ini <= pos && pos < self.end {
            self.cps.cps[pos].2
        } else {
            Flags::default()
        }
    }
    /// Emits the word `[prev_end, end)` if it is not empty; returns its length.
    fn add(&mut self, end: usize, out: &mut Vec<(usize, usize)>) -> usize {
        let len = end - self.prev_end;
        if len > 0 {
            out.push(self.cps.range(self.prev_end, end));
        }
        self.prev_end = end;
        len
    }
    /// The common tail of both matchers: `\s+(?!\S)` (a run of `n_ws` spaces leaves its last
    /// one to start the next word), `\s+` at the end, or else a single code point.
    /// Emits the word and returns the new position.
    fn whitespace_or_single(
        &mut self,
        pos: usize,
        n_ws: usize,
        out: &mut Vec<(usize, usize)>,
    ) -> usize {
        let end = if n_ws > 1 && self.cpt(pos + n_ws).is_some() {
            pos + n_ws - 1
        } else if n_ws > 0 {
            pos + n_ws
        } else {
            pos + 1
        };
        self.add(end, out);
        end
    }
    fn count_whitespace(&self, pos: usize) -> usize {
        let mut n = 0;
        while self.flags(pos + n).is_whitespace() {
            n += 1;
        }
        n
    }
}

fn gpt2(cps: &Cps<'_>, ini: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    let mut s = Segment {
        cps,
        ini,
        end,
        prev_end: ini,
    };
    let mut pos = ini;
    while pos < end {
        let cpt = s.cpt(pos);
        let flags = s.flags(pos);
        // 's|'t|'re|'ve|'m|'ll|'d
        if cpt == Some('\'') && pos + 1 < end {
            let next = s.cpt(pos + 1);
            if matches!(next, Some('s' | 't' | 'm' | 'd')) {
                pos += s.add(pos + 2, out);
                continue;
            }
            if pos + 2 < end {
                let pair = (next, s.cpt(pos + 2));
                if matches!(
                    pair,
                    (Some('r'), Some('e')) | (Some('v'), Some('e')) | (Some('l'), Some('l'))
                ) {
                    pos += s.add(pos + 3, out);
                    continue;
                }
            }
        }
        let space = usize::from(cpt == Some(' '));
        let mut flags2 = if space == 1 { s.flags(pos + 1) } else { flags };
        // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+'
        let classes: [fn(Flags) -> bool; 3] = [Flags::is_letter, Flags::is_number, |f| {
            !(f.is_whitespace() || f.is_letter() || f.is_number()) && f.is_some()
        }];
        if let Some(class) = classes.iter().find(|class| class(flags2)) {
            pos += space;
            while class(flags2) {
                pos += 1;
                flags2 = s.flags(pos);
            }
            s.add(pos, out);
            continue;
        }
        let n_ws = s.count_whitespace(pos);
        pos = s.whitespace_or_single(pos, n_ws, out);
    }
}

/// Llama-3 (`max_digits` 3) and Qwen2 (`max_digits` 1) splitting.
fn llama3_like(cps: &Cps<'_>, max_digits: usize, out: &mut Vec<(usize, usize)>) {
    let end = cps.cps.len();
    let mut s = Segment {
        cps,
        ini: 0,
        end,
        prev_end: 0,
    };
    let is_newline = |c: Option<char>| matches!(c, Some('\r' | '\n'));
    let mut pos = 0;
    while pos < end {
        let cpt = s.cpt(pos);
        let flags = s.flags(pos);
        // (?i:'s|'t|'re|'ve|'m|'ll|'d)
        if cpt == Some('\'') && pos + 1 < end {
            let lower = |c: Option<char>| c.map(|c| c.to_ascii_lowercase());
            let next = lower(s.cpt(pos + 1));
            if matches!(next, Some('s' | 't' | 'm' | 'd')) {
                pos += s.add(pos + 2, out);
                continue;
            }
            if pos + 2 < end {
                let pair = (next, lower(s.cpt(pos + 2)));
                if matches!(
                    pair,
                    (Some('r'), Some('e')) | (Some('v'), Some('e')) | (Some('l'), Some('l'))
                ) {
                    pos += s.add(pos + 3, out);
                    continue;
                }
            }
        }
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if !(is_newline(cpt) || flags.is_number())
            && (flags.is_letter() || s.flags(pos + 1).is_letter())
        {
            pos += 1;
            while s.flags(pos).is_letter() {
                pos += 1;
            }
            s.add(pos, out);
            continue;
        }
        // \p{N}{1,max_digits}
        if flags.is_number() {
            let mut ini = pos;
            while s.flags(pos).is_number() {
                pos += 1;
                if pos - ini >= max_digits {
                    s.add(pos, out);
                    ini = pos;
                }
            }
            s.add(pos, out);
            continue;
        }
        // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
        let other = |f: Flags| !(f.is_whitespace() || f.is_letter() || f.is_number());
        let space = usize::from(cpt == Some(' '));
        let mut flags2 = if space == 1 { s.flags(pos + 1) } else { flags };
        if other(flags2) && flags.is_some() {
            pos += space;
            while other(flags2) && flags2.is_some() {
                pos += 1;
                flags2 = s.flags(pos);
            }
            while is_newline(s.cpt(pos)) {
                pos += 1;
            }
            s.add(pos, out);
            continue;
        }
        let mut n_ws = 0;
        let mut last_newline_end = 0;
        while s.flags(pos + n_ws).is_whitespace() {
            if is_newline(s.cpt(pos + n_ws)) {
                last_newline_end = pos + n_ws + 1;
            }
            n_ws += 1;
        }
        // \s*[\r\n]+
        if last_newline_end > 0 {
            pos = last_newline_end;
            s.add(pos, out);
            continue;
        }
        pos = s.whitespace_or_single(pos, n_ws, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(pre: PreTokenizer, text: &str) -> Vec<&str> {
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        pre.split(text, &mut scratch, &mut out);
        let joined: String = out.iter().map(|&(a, b)| &text[a..b]).collect();
        assert_eq!(joined, text, "words must cover the text");
        out.iter().map(|&(a, b)| &text[a..b]).collect()
    }

    #[test]
    fn gpt2_words() {
        let w = words(PreTokenizer::Gpt2, "Hello world's  end, 123 ok!!  \n");
        assert_eq!(
            w,
            [
                "Hello", " world", "'s", " ", " end", ",", " 123", " ok", "!!", "  \n"
            ]
        );
        assert_eq!(words(PreTokenizer::Gpt2, "I'LL"), ["I", "'", "LL"]);
        assert_eq!(words(PreTokenizer::Gpt2, "a   b"), ["a", "  ", " b"]);
    }

    #[test]
    fn smollm_isolates_every_digit() {
        let w = words(PreTokenizer::DigitsThenGpt2, "year 2024, x1");
        assert_eq!(w, ["year", " ", "2", "0", "2", "4", ",", " x", "1"]);
    }

    #[test]
    fn qwen2_and_llama3_words() {
        let text = "Hello, World! It's 12345 apples\n\n  (ok)";
        assert_eq!(
            words(PreTokenizer::Qwen2, text),
            [
                "Hello", ",", " World", "!", " It", "'s", " ", "1", "2", "3", "4", "5", " apples",
                "\n\n", " ", " (", "ok", ")"
            ]
        );
        assert_eq!(
            words(PreTokenizer::Llama3, "x 12345 I'LL"),
            ["x", " ", "123", "45", " I", "'LL"]
        );
        assert_eq!(words(PreTokenizer::Qwen2, "中文测试。"), ["中文测试", "。"]);
        assert_eq!(words(PreTokenizer::Qwen2, "a \t\nb"), ["a", " \t\n", "b"]);
        assert_eq!(words(PreTokenizer::Qwen2, ""), Vec::<&str>::new());
    }
}
