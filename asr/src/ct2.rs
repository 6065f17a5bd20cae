//! Bounds-checked reader of CTranslate2's `model.bin`: header, named variables, aliases.
//!
//! Layout (binary version 6, little endian): `u32 version`, `string spec_name`, `u32 revision`,
//! `u32 n_vars`, then per variable `string name, u8 rank, u32 dims[rank], u8 dtype,
//! u32 n_bytes, bytes`, then `u32 n_aliases` and per alias `string alias, string target`.
//! A string is `u16 len` (including a trailing NUL) followed by `len` bytes.
//! Every length is checked against the file size before it is used, so a corrupt or
//! truncated file gives [`AsrError::BadModel`], never a panic or a huge allocation.

use std::collections::HashMap;
use std::path::Path;

use crate::error::AsrError;

/// Element type of a stored variable (CTranslate2's `DataType` ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    F32,
    I8,
    I16,
    I32,
    F16,
    BF16,
}

impl DType {
    fn from_id(id: u8) -> Option<Self> {
        Some(match id {
            0 => Self::F32,
            1 => Self::I8,
            2 => Self::I16,
            3 => Self::I32,
            4 => Self::F16,
            5 => Self::BF16,
            _ => return None,
        })
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            Self::I8 => 1,
            Self::I16 | Self::F16 | Self::BF16 => 2,
            Self::F32 | Self::I32 => 4,
        }
    }
}

/// One variable: its shape, type and the byte range of its data inside the file.
#[derive(Clone, Debug)]
pub struct VarInfo {
    pub shape: Vec<usize>,
    pub dtype: DType,
    offset: usize,
    len: usize,
}

/// A parsed `model.bin`, owning the mapped file.
pub struct Ct2Model {
    data: memmap2::Mmap,
    pub spec_name: String,
    pub revision: u32,
    vars: HashMap<String, VarInfo>,
    aliases: HashMap<String, String>,
    path: std::path::PathBuf,
}

impl std::fmt::Debug for Ct2Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ct2Model")
            .field("spec_name", &self.spec_name)
            .field("revision", &self.revision)
            .field("variables", &self.vars.len())
            .finish()
    }
}

/// Supported binary versions (aliases appeared in version 3; 6 is what current converters write).
const MIN_VERSION: u32 = 3;
const MAX_VERSION: u32 = 6;
/// No real model has variables of higher rank; guards against garbage.
const MAX_RANK: u8 = 8;

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| {
                format!(
                    "truncated at byte {} while reading {what} ({n} bytes needed, {} left)",
                    self.pos,
                    self.buf.len() - self.pos
                )
            })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, String> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn string(&mut self, what: &str) -> Result<String, String> {
        let n = self.u16(what)? as usize;
        if n == 0 {
            return Err(format!("empty {what} at byte {}", self.pos));
        }
        let b = self.take(n, what)?;
        let (text, nul) = b.split_at(n - 1);
        if nul != [0] {
            return Err(format!("{what} is not NUL-terminated at byte {}", self.pos));
        }
        String::from_utf8(text.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
    }
}

impl Ct2Model {
    /// Maps and parses `path`. Data is not copied; use [`Ct2Model::bytes`] to read a variable.
    pub fn open(path: &Path) -> Result<Self, AsrError> {
        let file = std::fs::File::open(path).map_err(|source| AsrError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        // SAFETY: the file is opened read-only; the model files are immutable once installed
        // (the asset store renames complete files into place and never rewrites them).
        let data = unsafe { memmap2::Mmap::map(&file) }.map_err(|source| AsrError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(data, path)
    }

    fn parse(data: memmap2::Mmap, path: &Path) -> Result<Self, AsrError> {
        let bad = |detail: String| AsrError::BadModel {
            path: path.to_path_buf(),
            detail,
        };
        let mut c = Cursor { buf: &data, pos: 0 };
        let version = c.u32("binary version").map_err(bad)?;
        if !(MIN_VERSION..=MAX_VERSION).contains(&version) {
            return Err(bad(format!(
                "unsupported CTranslate2 binary version {version} (supported {MIN_VERSION}..={MAX_VERSION})"
            )));
        }
        let spec_name = c.string("spec name").map_err(bad)?;
        let revision = c.u32("spec revision").map_err(bad)?;
        let n_vars = c.u32("variable count").map_err(bad)? as usize;
        // Each variable needs at least 8 bytes of header: a cheap bound before allocating.
        if n_vars > data.len() / 8 {
            return Err(bad(format!(
                "variable count {n_vars} is impossible for the file size"
            )));
        }
        let mut vars = HashMap::with_capacity(n_vars);
        for i in 0..n_vars {
            let name = c.string("variable name").map_err(bad)?;
            let rank = c.u8("rank").map_err(bad)?;
            if rank > MAX_RANK {
                return Err(bad(format!("variable {name} has rank {rank}")));
            }
            let mut shape = Vec::with_capacity(rank as usize);
            for _ in 0..rank {
                shape.push(c.u32("dimension").map_err(bad)? as usize);
            }
            let dtype_id = c.u8("dtype").map_err(bad)?;
            let dtype = DType::from_id(dtype_id)
                .ok_or_else(|| bad(format!("variable {name} has unknown dtype id {dtype_id}")))?;
            let n_bytes = c.u32("data size").map_err(bad)? as usize;
            let numel = shape
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(d))
                .ok_or_else(|| bad(format!("variable {name}: shape overflows")))?;
            if numel.checked_mul(dtype.size()) != Some(n_bytes) {
                return Err(bad(format!(
                    "variable {name} (#{i}): {n_bytes} bytes do not match shape {shape:?} of {dtype:?}"
                )));
            }
            let offset = c.pos;
            c.take(n_bytes, &format!("data of {name}")).map_err(bad)?;
            vars.insert(
                name,
                VarInfo {
                    shape,
                    dtype,
                    offset,
                    len: n_bytes,
                },
            );
        }
        let n_aliases = c.u32("alias count").map_err(bad)? as usize;
        if n_aliases > data.len() / 4 {
            return Err(bad(format!("alias count {n_aliases} is impossible")));
        }
        let mut aliases = HashMap::new();
        for _ in 0..n_aliases {
            let alias = c.string("alias name").map_err(bad)?;
            let target = c.string("alias target").map_err(bad)?;
            aliases.insert(alias, target);
        }
        if c.pos != data.len() {
            return Err(bad(format!(
                "{} unexpected trailing bytes after the aliases",
                data.len() - c.pos
            )));
        }
        Ok(Self {
            data,
            spec_name,
            revision,
            vars,
            aliases,
            path: path.to_path_buf(),
        })
    }

    fn missing(&self, name: &str, detail: String) -> AsrError {
        AsrError::BadModel {
            path: self.path.clone(),
            detail: format!("{name}: {detail}"),
        }
    }

    /// Looks a variable up by name, following one alias.
    pub fn get(&self, name: &str) -> Result<&VarInfo, AsrError> {
        let key = self.aliases.get(name).map(String::as_str).unwrap_or(name);
        self.vars
            .get(key)
            .ok_or_else(|| self.missing(name, "variable not found".into()))
    }

    /// True when the variable (or an alias of it) exists.
    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_ok()
    }

    /// The raw bytes of a variable.
    pub fn bytes(&self, v: &VarInfo) -> &[u8] {
        &self.data[v.offset..v.offset + v.len]
    }

    /// A variable as f32 values with the expected shape (f32, f16 or bf16 storage).
    pub fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, AsrError> {
        let v = self.check_shape(name, shape)?;
        let b = self.bytes(v);
        Ok(match v.dtype {
            DType::F32 => b
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            DType::F16 => b
                .chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            DType::BF16 => b
                .chunks_exact(2)
                .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            other => {
                return Err(self.missing(name, format!("expected a float tensor, found {other:?}")));
            }
        })
    }

    /// A variable as f16 bit patterns (converting from f32/bf16 if stored so).
    pub fn f16_bits(&self, name: &str, shape: &[usize]) -> Result<Vec<u16>, AsrError> {
        let v = self.check_shape(name, shape)?;
        if v.dtype == DType::F16 {
            return Ok(self
                .bytes(v)
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect());
        }
        Ok(self
            .f32(name, shape)?
            .into_iter()
            .map(|x| half::f16::from_f32(x).to_bits())
            .collect())
    }

    /// A scalar integer variable (int8/int16/int32), e.g. `encoder/num_heads`.
    pub fn scalar_int(&self, name: &str) -> Result<i64, AsrError> {
        let v = self.get(name)?;
        let b = self.bytes(v);
        if !v.shape.is_empty() {
            return Err(self.missing(
                name,
                format!("expected a scalar, found shape {:?}", v.shape),
            ));
        }
        Ok(match v.dtype {
            DType::I8 => i64::from(b[0] as i8),
            DType::I16 => i64::from(i16::from_le_bytes([b[0], b[1]])),
            DType::I32 => i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            other => {
                return Err(
                    self.missing(name, format!("expected an integer scalar, found {other:?}"))
                );
            }
        })
    }

    fn check_shape(&self, name: &str, shape: &[usize]) -> Result<&VarInfo, AsrError> {
        let v = self.get(name)?;
        if v.shape != shape {
            return Err(self.missing(
                name,
                format!("shape {:?} differs from the expected {shape:?}", v.shape),
            ));
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&((s.len() + 1) as u16).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }

    /// A tiny valid model: one f16 matrix, one int16 scalar and an alias.
    fn tiny_model() -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&6u32.to_le_bytes());
        string(&mut b, "WhisperSpec");
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&2u32.to_le_bytes());
        string(&mut b, "w");
        b.push(2);
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&3u32.to_le_bytes());
        b.push(4);
        b.extend_from_slice(&12u32.to_le_bytes());
        for x in [1.0f32, 2.0, 3.0, -1.0, 0.5, 0.25] {
            b.extend_from_slice(&half::f16::from_f32(x).to_le_bytes());
        }
        string(&mut b, "heads");
        b.push(0);
        b.push(2);
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&6i16.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        string(&mut b, "alias");
        string(&mut b, "w");
        b
    }

    fn open_bytes(bytes: &[u8]) -> Result<Ct2Model, AsrError> {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        f.write_all(bytes).expect("write");
        Ct2Model::open(f.path())
    }

    #[test]
    fn reads_a_valid_file() {
        let m = open_bytes(&tiny_model()).expect("valid model");
        assert_eq!(m.spec_name, "WhisperSpec");
        assert_eq!(
            m.f32("alias", &[2, 3]).expect("alias"),
            vec![1.0, 2.0, 3.0, -1.0, 0.5, 0.25]
        );
        assert_eq!(m.scalar_int("heads").expect("heads"), 6);
        assert!(m.f32("w", &[3, 2]).is_err(), "wrong shape must be refused");
        assert!(m.get("nope").is_err());
    }

    #[test]
    fn every_truncation_is_a_clear_error() {
        let full = tiny_model();
        for cut in 0..full.len() {
            let err = open_bytes(&full[..cut]).expect_err("truncated file must fail");
            assert!(matches!(err, AsrError::BadModel { .. }), "cut {cut}: {err}");
        }
    }

    #[test]
    fn corrupted_bytes_never_panic() {
        let full = tiny_model();
        for i in 0..full.len() {
            for v in [0u8, 0xff, 0x7f] {
                let mut b = full.clone();
                b[i] = v;
                // Either parses (a data byte changed) or returns an error; never panics.
                let _ = open_bytes(&b);
            }
        }
    }
}
