//! Token texts in one arena with an open-addressing text -> id index, token attributes,
//! and the BPE merge table keyed by token-id pairs.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Sentinel for "no token".
pub const NO_TOKEN: u32 = u32::MAX;

/// Token attributes (llama.cpp's `LLAMA_TOKEN_ATTR_*` subset that matters for BPE).
pub mod attr {
    pub const UNDEFINED: u8 = 0;
    pub const UNKNOWN: u8 = 1;
    pub const UNUSED: u8 = 2;
    pub const NORMAL: u8 = 4;
    pub const CONTROL: u8 = 8;
    pub const USER_DEFINED: u8 = 16;
    pub const BYTE: u8 = 32;

    /// From `tokenizer.ggml.token_type` (1 normal, 2 unknown, 3 control, 4 user defined,
    /// 5 unused, 6 byte).
    pub fn from_token_type(t: i32) -> u8 {
        match t {
            1 => NORMAL,
            2 => UNKNOWN,
            3 => CONTROL,
            4 => USER_DEFINED,
            5 => UNUSED,
            6 => BYTE,
            _ => UNDEFINED,
        }
    }
}

/// Concatenated byte strings addressed by index, at most `limit` bytes in all (and never
/// more than the u32 end offsets address).
#[derive(Debug, Default, Clone)]
pub struct Arena {
    bytes: Vec<u8>,
    ends: Vec<u32>,
    limit: usize,
}

/// An [`Arena`] append that would pass its byte limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArenaFull;

impl Arena {
    /// Room for `items` strings of `bytes` in all; appends past `limit` bytes fail.
    pub fn with_capacity(items: usize, bytes: usize, limit: usize) -> Self {
        let limit = limit.min(u32::MAX as usize);
        Self {
            bytes: Vec::with_capacity(bytes.min(limit)),
            ends: Vec::with_capacity(items),
            limit,
        }
    }
    /// The end offset after appending `extra` bytes, if that stays within the limit.
    fn end_after(&self, extra: usize) -> Result<u32, ArenaFull> {
        let end = self
            .bytes
            .len()
            .checked_add(extra)
            .filter(|&e| e <= self.limit)
            .ok_or(ArenaFull)?;
        u32::try_from(end).map_err(|_| ArenaFull)
    }
    pub fn push(&mut self, s: &[u8]) -> Result<(), ArenaFull> {
        let end = self.end_after(s.len())?;
        self.bytes.extend_from_slice(s);
        self.ends.push(end);
        Ok(())
    }
    /// Extends the last item (used while building an item piecewise).
    pub fn extend_last(&mut self, s: &[u8]) -> Result<(), ArenaFull> {
        let end = self.end_after(s.len())?;
        self.bytes.extend_from_slice(s);
        if let Some(e) = self.ends.last_mut() {
            *e = end;
        }
        Ok(())
    }
    /// Bytes held in all.
    pub fn bytes_len(&self) -> usize {
        self.bytes.len()
    }
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }
    pub fn len(&self) -> usize {
        self.ends.len()
    }
}

/// FxHash-style multiplicative hasher: fast for short keys, good enough spread.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(a));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut a = [0u8; 8];
            a[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(a) ^ ((rest.len() as u64) << 59));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(SEED);
    }
    fn finish(&self) -> u64 {
        // Final avalanche so the low bits used for table indices depend on all input bits.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;

fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(b);
    h.write_u64(b.len() as u64);
    h.finish()
}

/// Text -> id index over an [`Arena`]: open addressing, each slot holds the id and 32 bits
/// of the hash, so a probe only touches the token text when the tags agree. Duplicate texts
/// map to the last id, as in llama.cpp.
#[derive(Debug, Clone)]
pub struct TextIndex {
    slots: Vec<u64>,
    mask: usize,
}

const EMPTY: u64 = u64::MAX;

fn slot(id: u32, hash: u64) -> u64 {
    (hash & 0xFFFF_FFFF_0000_0000) | u64::from(id)
}

impl TextIndex {
    pub fn build(texts: &Arena) -> Self {
        let cap = (texts.len() * 2).next_power_of_two().max(16);
        let mut index = Self {
            slots: vec![EMPTY; cap],
            mask: cap - 1,
        };
        for id in 0..texts.len() {
            let text = texts.get(id);
            let h = hash_bytes(text);
            let mut i = h as usize & index.mask;
            loop {
                let s = index.slots[i];
                if s == EMPTY || (s >> 32 == h >> 32 && texts.get(s as u32 as usize) == text) {
                    index.slots[i] = slot(id as u32, h);
                    break;
                }
                i = (i + 1) & index.mask;
            }
        }
        index
    }

    fn find_from(&self, texts: &Arena, text: &[u8], h: u64, mut i: usize) -> Option<u32> {
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return None;
            }
            if s >> 32 == h >> 32 && texts.get(s as u32 as usize) == text {
                return Some(s as u32);
            }
            i = (i + 1) & self.mask;
        }
    }

    pub fn find(&self, texts: &Arena, text: &[u8]) -> Option<u32> {
        let h = hash_bytes(text);
        self.find_from(texts, text, h, h as usize & self.mask)
    }

    /// Looks up many texts at once. The first probe of every text is loaded before any is
    /// compared, so the cache misses of a batch overlap instead of queuing one after another
    /// (this is most of the cost of loading a 151K-token vocabulary).
    pub fn find_batch<const N: usize>(
        &self,
        texts: &Arena,
        queries: &[&[u8]; N],
    ) -> [Option<u32>; N] {
        let mut hashes = [0u64; N];
        let mut first = [EMPTY; N];
        for (q, h) in queries.iter().zip(&mut hashes) {
            *h = hash_bytes(q);
        }
        for (h, f) in hashes.iter().zip(&mut first) {
            *f = self.slots[*h as usize & self.mask];
        }
        let mut out = [None; N];
        for k in 0..N {
            let (h, s) = (hashes[k], first[k]);
            if s == EMPTY {
                continue;
            }
            out[k] = if s >> 32 == h >> 32 && texts.get(s as u32 as usize) == queries[k] {
                Some(s as u32)
            } else {
                self.find_from(texts, queries[k], h, (h as usize + 1) & self.mask)
            };
        }
        out
    }
}

/// BPE merges: `(left id, right id) -> (rank, merged id)`.
#[derive(Debug, Clone, Default)]
pub struct Merges {
    map: HashMap<u64, (u32, u32), FxBuild>,
}

impl Merges {
    pub fn with_capacity(n: usize) -> Self {
        Self {
            map: HashMap::with_capacity_and_hasher(n, FxBuild::default()),
        }
    }
    /// Adds a merge unless the pair already has one (the first rank wins, as in llama.cpp).
    pub fn insert(&mut self, left: u32, right: u32, rank: u32, merged: u32) {
        self.map.entry(key(left, right)).or_insert((rank, merged));
    }
    pub fn get(&self, left: u32, right: u32) -> Option<(u32, u32)> {
        self.map.get(&key(left, right)).copied()
    }
    pub fn len(&self) -> usize {
        self.map.len()
    }
}

fn key(left: u32, right: u32) -> u64 {
    (u64::from(left) << 32) | u64::from(right)
}
