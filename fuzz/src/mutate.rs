//! Byte mutations, plain and structure-aware.
//!
//! A target describes where the numbers of its format sit in a seed ([`Field`]: offset, width,
//! what the number means); [`mutate`] then mostly rewrites those numbers with values that break
//! parsers (0, 1, all ones, off by one from the file size, powers of two near overflow, the
//! field's value scaled), and sometimes applies plain byte mutations (flips, runs, cuts,
//! inserts, tokens from a dictionary).

use crate::Rng;

/// What a number in a file means: it decides which values are worth trying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// How many items follow (tensors, keys, array elements, variables, chunks).
    Count,
    /// A length in bytes (strings, chunks, data sizes).
    Len,
    /// A shape dimension or rank.
    Dim,
    /// A position inside the file or a section.
    Offset,
    /// A type or format tag (value type, tensor type, dtype, WAV format tag).
    Tag,
    /// A rate or other physical quantity (sample rate, bits, channels).
    Quantity,
}

/// A little-endian unsigned number of `width` bytes (1, 2, 4 or 8) at byte `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub at: usize,
    pub width: u8,
    pub kind: Kind,
}

impl Field {
    pub fn new(at: usize, width: u8, kind: Kind) -> Field {
        Field { at, width, kind }
    }

    /// The field's value in `data` (`None` if it lies outside).
    pub fn get(&self, data: &[u8]) -> Option<u64> {
        let b = data.get(self.at..self.at + usize::from(self.width))?;
        let mut a = [0u8; 8];
        a[..b.len()].copy_from_slice(b);
        Some(u64::from_le_bytes(a))
    }

    /// Writes `value` (truncated to the width); ignored if the field lies outside `data`.
    pub fn set(&self, data: &mut [u8], value: u64) {
        let w = usize::from(self.width);
        if let Some(b) = data.get_mut(self.at..self.at + w) {
            b.copy_from_slice(&value.to_le_bytes()[..w]);
        }
    }

    fn max(&self) -> u64 {
        if self.width >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * u32::from(self.width))) - 1
        }
    }
}

/// A value likely to break a parser for `field`, whose current value is `cur`, in a file of
/// `len` bytes.
pub fn interesting(rng: &mut Rng, field: &Field, cur: u64, len: usize) -> u64 {
    let max = field.max();
    let len = len as u64;
    let v = match rng.below(14) {
        0 => 0,
        1 => 1,
        2 => max,
        3 => max / 2 + 1,
        4 => cur.wrapping_add(1),
        5 => cur.wrapping_sub(1),
        6 => cur.wrapping_mul(2 + rng.below(1000) as u64),
        7 => cur / (2 + rng.below(16) as u64),
        8 => len.wrapping_add(rng.below(64) as u64).wrapping_sub(32),
        9 => 1u64 << rng.below(8 * usize::from(field.width)),
        10 => (1u64 << rng.below(8 * usize::from(field.width))).wrapping_sub(1),
        11 => match field.kind {
            Kind::Tag => rng.below(40) as u64,
            Kind::Dim => rng.below(9) as u64,
            Kind::Quantity => *rng
                .pick(&[
                    1, 7, 8, 16, 24, 32, 64, 3999, 4000, 8000, 44_100, 384_000, 384_001,
                ])
                .unwrap_or(&0),
            Kind::Count | Kind::Len | Kind::Offset => len / (1 + rng.below(8) as u64),
        },
        12 => cur ^ (1u64 << rng.below(8 * usize::from(field.width))),
        _ => rng.next_u64(),
    };
    v & max
}

/// Applies 1 to 4 mutations to `data`. With `fields` (positions valid for `data` as it comes
/// in), most of the first mutations rewrite a field; `dict` holds tokens worth inserting.
pub fn mutate(rng: &mut Rng, data: &mut Vec<u8>, fields: &[Field], dict: &[&[u8]]) {
    let n = 1 + rng.size(4);
    let mut fields_valid = true;
    for _ in 0..n {
        if fields_valid && !fields.is_empty() && !rng.one_in(3) {
            let f = fields[rng.below(fields.len())];
            let cur = f.get(data).unwrap_or(0);
            let v = interesting(rng, &f, cur, data.len());
            f.set(data, v);
            continue;
        }
        // A byte mutation may move everything after it: fields are no longer trusted.
        fields_valid &= byte_mutation(rng, data, dict);
    }
}

/// One plain byte mutation; returns whether offsets in `data` stayed where they were.
pub fn byte_mutation(rng: &mut Rng, data: &mut Vec<u8>, dict: &[&[u8]]) -> bool {
    let len = data.len();
    let at = rng.below(len + 1);
    match rng.below(9) {
        0 if len > 0 => {
            data[at.min(len - 1)] ^= 1 << rng.below(8);
            true
        }
        1 if len > 0 => {
            data[at.min(len - 1)] = *rng.pick(&[0u8, 0xff, 0x7f, 0x80, 1]).unwrap_or(&0);
            true
        }
        2 if len > 0 => {
            let n = rng.size(64).min(len - at.min(len - 1));
            let start = at.min(len - 1);
            rng.fill(&mut data[start..start + n]);
            true
        }
        3 => {
            data.truncate(at);
            true
        }
        4 => {
            let mut extra = vec![0u8; rng.size(256)];
            rng.fill(&mut extra);
            data.splice(at..at, extra);
            false
        }
        5 if len > 0 => {
            let n = rng.size(256).min(len - at.min(len));
            data.drain(at..at + n);
            false
        }
        6 if len > 0 => {
            let start = rng.below(len);
            let n = rng.size(256).min(len - start);
            let chunk = data[start..start + n].to_vec();
            data.splice(at..at, chunk);
            false
        }
        7 if !dict.is_empty() => {
            let tok = dict[rng.below(dict.len())];
            if rng.one_in(2) && at + tok.len() <= len {
                data[at..at + tok.len()].copy_from_slice(tok);
                true
            } else {
                data.splice(at..at, tok.iter().copied());
                false
            }
        }
        _ => {
            data.push(rng.next_u64() as u8);
            true
        }
    }
}

/// Text made of `pieces` (tokens worth combining) and random characters: `n` items.
pub fn text(rng: &mut Rng, pieces: &[&str], n: usize) -> String {
    let mut s = String::new();
    for _ in 0..n {
        match rng.below(8) {
            0 => s.push(char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('\u{fffd}')),
            1 => s.push(char::from(rng.below(128) as u8)),
            _ => s.push_str(rng.pick(pieces).copied().unwrap_or(" ")),
        }
    }
    s
}

/// `text` mutated: pieces inserted, removed, repeated, characters swapped.
pub fn mutate_text(rng: &mut Rng, text_in: &str, pieces: &[&str]) -> String {
    let mut chars: Vec<char> = text_in.chars().collect();
    for _ in 0..1 + rng.size(4) {
        let at = rng.below(chars.len() + 1);
        match rng.below(5) {
            0 => {
                let n = rng.size(32).min(chars.len() - at);
                chars.drain(at..at + n);
            }
            1 if !chars.is_empty() => {
                let start = rng.below(chars.len());
                let n = rng.size(64).min(chars.len() - start);
                let rep: Vec<char> = chars[start..start + n].to_vec();
                for _ in 0..rng.size(20) {
                    chars.splice(at..at, rep.iter().copied());
                }
            }
            _ => {
                let n = 1 + rng.size(8);
                let ins = text(rng, pieces, n);
                chars.splice(at..at, ins.chars());
            }
        }
    }
    chars.into_iter().collect()
}
