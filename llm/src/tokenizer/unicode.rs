//! Code point classes for the pre-tokenizer (`\p{L}`, `\p{N}`, `\s`) and the GPT-2 byte
//! <-> character mapping of byte-level BPE.

use super::unicode_flags::RANGES;

/// Class bits of one code point. Every code point of the text has at least one bit
/// (unassigned ones have `UNDEFINED`), so `0` can mean "outside the text".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags(pub u16);

impl Flags {
    pub const UNDEFINED: u16 = 1;
    pub const NUMBER: u16 = 2;
    pub const LETTER: u16 = 4;
    pub const SEPARATOR: u16 = 8;
    pub const MARK: u16 = 16;
    pub const PUNCTUATION: u16 = 32;
    pub const SYMBOL: u16 = 64;
    pub const CONTROL: u16 = 128;
    pub const WHITESPACE: u16 = 256;

    /// The classes of `c`.
    pub fn of(c: char) -> Flags {
        let cp = c as u32;
        let class = if cp < 128 {
            ASCII[cp as usize]
        } else {
            let i = RANGES.partition_point(|&(start, _)| start <= cp);
            // RANGES starts at 0, so i >= 1.
            RANGES[i.saturating_sub(1)].1
        };
        let ws = if c.is_whitespace() {
            Self::WHITESPACE
        } else {
            0
        };
        Flags(u16::from(class) | ws)
    }

    /// True for any code point inside the text (the `as_uint() != 0` test of llama.cpp).
    pub fn is_some(self) -> bool {
        self.0 != 0
    }
    pub fn is_letter(self) -> bool {
        self.0 & Self::LETTER != 0
    }
    pub fn is_number(self) -> bool {
        self.0 & Self::NUMBER != 0
    }
    pub fn is_whitespace(self) -> bool {
        self.0 & Self::WHITESPACE != 0
    }
}

/// Classes of the ASCII range, taken from the generated table at compile time.
static ASCII: [u8; 128] = {
    let mut out = [0u8; 128];
    let mut r = 0;
    while r < RANGES.len() && RANGES[r].0 < 128 {
        let end = if r + 1 < RANGES.len() && RANGES[r + 1].0 < 128 {
            RANGES[r + 1].0
        } else {
            128
        };
        let mut c = RANGES[r].0;
        while c < end {
            out[c as usize] = RANGES[r].1;
            c += 1;
        }
        r += 1;
    }
    out
};

/// GPT-2's `bytes_to_unicode`: printable Latin-1 bytes map to themselves, the other 68
/// bytes to U+0100.. in byte order.
pub static BYTE_TO_CHAR: [char; 256] = {
    let mut out = ['\0'; 256];
    let mut n = 0u32;
    let mut b = 0usize;
    while b < 256 {
        let printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
        let cp = if printable {
            b as u32
        } else {
            n += 1;
            255 + n
        };
        out[b] = match char::from_u32(cp) {
            Some(c) => c,
            None => '\0',
        };
        b += 1;
    }
    out
};

/// Inverse of [`BYTE_TO_CHAR`]: the byte a character stands for, if any.
pub fn char_to_byte(c: char) -> Option<u8> {
    let cp = c as usize;
    let b = *CHAR_TO_BYTE.get(cp)?;
    (b >= 0).then_some(b as u8)
}

static CHAR_TO_BYTE: [i16; 324] = {
    let mut out = [-1i16; 324];
    let mut b = 0;
    while b < 256 {
        out[BYTE_TO_CHAR[b] as usize] = b as i16;
        b += 1;
    }
    out
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_of_common_characters() {
        assert!(Flags::of('a').is_letter() && Flags::of('Z').is_letter());
        assert!(
            Flags::of('é').is_letter() && Flags::of('中').is_letter() && Flags::of('я').is_letter()
        );
        assert!(
            Flags::of('7').is_number() && Flags::of('²').is_number() && Flags::of('٣').is_number()
        );
        assert!(Flags::of(' ').is_whitespace() && Flags::of('\n').is_whitespace());
        assert!(Flags::of('\u{3000}').is_whitespace() && Flags::of('\u{a0}').is_whitespace());
        assert!(
            !Flags::of('\u{1c}').is_whitespace(),
            "U+001C is not White_Space"
        );
        let dot = Flags::of('.');
        assert!(dot.is_some() && !dot.is_letter() && !dot.is_number() && !dot.is_whitespace());
        assert_eq!(Flags::of('😀').0, Flags::SYMBOL);
        assert_eq!(Flags::of('\u{e000}').0, Flags::CONTROL, "private use");
        assert_eq!(Flags::of('\u{40000}').0, Flags::UNDEFINED, "unassigned");
        assert!(Flags::of('\u{0301}').0 & Flags::MARK != 0);
        assert!(Flags::of('\u{2EBF0}').is_letter(), "CJK extension I");
    }

    #[test]
    fn byte_mapping_is_gpt2s() {
        assert_eq!(BYTE_TO_CHAR[b'a' as usize], 'a');
        assert_eq!(BYTE_TO_CHAR[b' ' as usize], 'Ġ');
        assert_eq!(BYTE_TO_CHAR[b'\n' as usize], 'Ċ');
        assert_eq!(BYTE_TO_CHAR[0], 'Ā');
        assert_eq!(BYTE_TO_CHAR[0xAD], 'Ń');
        for b in 0..=255u8 {
            assert_eq!(char_to_byte(BYTE_TO_CHAR[b as usize]), Some(b));
        }
        assert_eq!(char_to_byte('中'), None);
        assert_eq!(char_to_byte('\u{144}'), None);
    }
}
