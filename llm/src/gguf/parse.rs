//! Bounds-checked parsing of a GGUF header, metadata and tensor infos from a byte slice.
//!
//! Every read is checked against the slice; every count is bounded by what the remaining
//! bytes could hold before anything is allocated, so a hostile header cannot make us
//! allocate more than a small multiple of the file size.

use std::collections::{HashMap, HashSet};

use super::error::GgufError;
use super::ggml_type::GgmlType;
use super::metadata::Metadata;
use super::tensor::TensorInfo;
use super::value::{MetaArray, MetaType, MetaValue};

/// `"GGUF"` as the first four bytes.
pub const GGUF_MAGIC: [u8; 4] = *b"GGUF";
/// Alignment of tensor data when `general.alignment` is absent.
pub const DEFAULT_ALIGNMENT: u64 = 32;
/// ggml tensors have at most four dimensions.
pub const MAX_DIMS: usize = 4;
/// Nested metadata arrays deeper than this are rejected (bounds recursion).
pub const MAX_ARRAY_DEPTH: usize = 4;

/// Smallest possible tensor info: name length (8) + n_dims (4) + type (4) + offset (8).
const MIN_TENSOR_INFO: u64 = 24;
/// Smallest possible key/value: key length (8) + one key byte + type (4) + one value byte.
const MIN_KV: u64 = 14;

/// Everything before the tensor data.
#[derive(Debug)]
pub struct Parsed {
    pub version: u32,
    pub metadata: Metadata,
    pub tensors: Vec<TensorInfo>,
    pub alignment: u64,
    /// Absolute file offset where the data section starts.
    pub data_offset: u64,
}

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn offset(&self) -> u64 {
        self.pos as u64
    }

    fn remaining(&self) -> u64 {
        (self.buf.len() - self.pos) as u64
    }

    fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], GgufError> {
        let truncated = || GgufError::Truncated {
            what,
            offset: self.pos as u64,
            need: n,
            len: self.buf.len() as u64,
        };
        let n = usize::try_from(n).map_err(|_| truncated())?;
        let end = self.pos.checked_add(n).ok_or_else(truncated)?;
        let bytes = self.buf.get(self.pos..end).ok_or_else(truncated)?;
        self.pos = end;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], GgufError> {
        let bytes = self.take(N as u64, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, GgufError> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, GgufError> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A count of items that each take at least `min_size` bytes.
    fn count(&mut self, what: &'static str, min_size: u64) -> Result<u64, GgufError> {
        let offset = self.offset();
        let count = self.u64(what)?;
        let remaining = self.remaining();
        match count.checked_mul(min_size) {
            Some(bytes) if bytes <= remaining => Ok(count),
            _ => Err(GgufError::CountTooLarge {
                what,
                count,
                offset,
                remaining,
            }),
        }
    }

    fn string(&mut self, what: &'static str) -> Result<String, GgufError> {
        let len_offset = self.offset();
        let len = self.u64(what)?;
        let offset = self.offset();
        if len > self.remaining() {
            return Err(GgufError::Truncated {
                what,
                offset: len_offset,
                need: len.saturating_add(8),
                len: self.buf.len() as u64,
            });
        }
        let bytes = self.take(len, what)?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| GgufError::InvalidUtf8 { what, offset })
    }

    fn value(&mut self, ty: MetaType, key: &str, depth: usize) -> Result<MetaValue, GgufError> {
        const WHAT: &str = "metadata value";
        Ok(match ty {
            MetaType::U8 => MetaValue::U8(self.array::<1>(WHAT)?[0]),
            MetaType::I8 => MetaValue::I8(i8::from_le_bytes(self.array(WHAT)?)),
            MetaType::U16 => MetaValue::U16(u16::from_le_bytes(self.array(WHAT)?)),
            MetaType::I16 => MetaValue::I16(i16::from_le_bytes(self.array(WHAT)?)),
            MetaType::U32 => MetaValue::U32(u32::from_le_bytes(self.array(WHAT)?)),
            MetaType::I32 => MetaValue::I32(i32::from_le_bytes(self.array(WHAT)?)),
            MetaType::F32 => MetaValue::F32(f32::from_le_bytes(self.array(WHAT)?)),
            MetaType::Bool => MetaValue::Bool(self.bool(key)?),
            MetaType::String => MetaValue::String(self.string("metadata string")?),
            MetaType::Array => MetaValue::Array(self.meta_array(key, depth + 1)?),
            MetaType::U64 => MetaValue::U64(u64::from_le_bytes(self.array(WHAT)?)),
            MetaType::I64 => MetaValue::I64(i64::from_le_bytes(self.array(WHAT)?)),
            MetaType::F64 => MetaValue::F64(f64::from_le_bytes(self.array(WHAT)?)),
        })
    }

    fn bool(&mut self, key: &str) -> Result<bool, GgufError> {
        let offset = self.offset();
        match self.array::<1>("metadata bool")?[0] {
            0 => Ok(false),
            1 => Ok(true),
            byte => Err(GgufError::BadBool {
                key: key.to_string(),
                byte,
                offset,
            }),
        }
    }

    fn meta_type(&mut self, key: &str) -> Result<MetaType, GgufError> {
        let id = self.u32("metadata value type")?;
        MetaType::from_id(id).ok_or_else(|| GgufError::BadValueType {
            key: key.to_string(),
            type_id: id,
        })
    }

    fn meta_array(&mut self, key: &str, depth: usize) -> Result<MetaArray, GgufError> {
        if depth > MAX_ARRAY_DEPTH {
            return Err(GgufError::NestingTooDeep {
                key: key.to_string(),
                max_depth: MAX_ARRAY_DEPTH,
            });
        }
        let ty = self.meta_type(key)?;
        let n = self.count("array element", ty.min_encoded_size())?;
        // `count` bounded n * element size by the remaining bytes, so n fits in usize.
        let n = n as usize;
        macro_rules! fixed {
            ($variant:ident, $t:ty) => {{
                let bytes = self.take((n * std::mem::size_of::<$t>()) as u64, "array data")?;
                MetaArray::$variant(
                    bytes
                        .chunks_exact(std::mem::size_of::<$t>())
                        .map(|c| {
                            let mut a = [0u8; std::mem::size_of::<$t>()];
                            a.copy_from_slice(c);
                            <$t>::from_le_bytes(a)
                        })
                        .collect(),
                )
            }};
        }
        Ok(match ty {
            MetaType::U8 => MetaArray::U8(self.take(n as u64, "array data")?.to_vec()),
            MetaType::I8 => fixed!(I8, i8),
            MetaType::U16 => fixed!(U16, u16),
            MetaType::I16 => fixed!(I16, i16),
            MetaType::U32 => fixed!(U32, u32),
            MetaType::I32 => fixed!(I32, i32),
            MetaType::F32 => fixed!(F32, f32),
            MetaType::U64 => fixed!(U64, u64),
            MetaType::I64 => fixed!(I64, i64),
            MetaType::F64 => fixed!(F64, f64),
            MetaType::Bool => {
                MetaArray::Bool((0..n).map(|_| self.bool(key)).collect::<Result<_, _>>()?)
            }
            MetaType::String => MetaArray::String(
                (0..n)
                    .map(|_| self.string("array string"))
                    .collect::<Result<_, _>>()?,
            ),
            MetaType::Array => MetaArray::Array(
                (0..n)
                    .map(|_| self.meta_array(key, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }
}

/// Parses header, metadata and tensor infos of `buf` (the whole file) and validates every
/// tensor's data range against the file.
pub fn parse(buf: &[u8]) -> Result<Parsed, GgufError> {
    let mut c = Cursor { buf, pos: 0 };
    let magic = c.array::<4>("magic").map_err(|_| GgufError::BadMagic {
        found: buf.iter().take(4).copied().collect(),
    })?;
    if magic != GGUF_MAGIC {
        return Err(GgufError::BadMagic {
            found: magic.to_vec(),
        });
    }
    let version = c.u32("version")?;
    if version != 0 && version & 0xFFFF == 0 {
        return Err(GgufError::BigEndian(version));
    }
    if !(2..=3).contains(&version) {
        return Err(GgufError::UnsupportedVersion(version));
    }
    let n_tensors = c.u64("tensor count")?;
    let n_kv = c.u64("metadata count")?;
    // Both tables follow: each entry needs a minimum number of bytes.
    let need = n_tensors
        .checked_mul(MIN_TENSOR_INFO)
        .and_then(|t| n_kv.checked_mul(MIN_KV).and_then(|k| k.checked_add(t)));
    if need.is_none_or(|need| need > c.remaining()) {
        let (what, count) = if n_kv.checked_mul(MIN_KV).is_none_or(|b| b > c.remaining()) {
            ("metadata", n_kv)
        } else {
            ("tensor", n_tensors)
        };
        return Err(GgufError::CountTooLarge {
            what,
            count,
            offset: 8,
            remaining: c.remaining(),
        });
    }

    let mut metadata = Metadata::new();
    for _ in 0..n_kv {
        let offset = c.offset();
        let key = c.string("metadata key")?;
        if key.is_empty() {
            return Err(GgufError::EmptyKey { offset });
        }
        if metadata.contains(&key) {
            return Err(GgufError::DuplicateKey(key));
        }
        let ty = c.meta_type(&key)?;
        let value = c.value(ty, &key, 0)?;
        metadata.insert(key, value);
    }
    let alignment = alignment(&metadata)?;

    let mut tensors = Vec::with_capacity(n_tensors as usize);
    let mut names = HashSet::with_capacity(n_tensors as usize);
    for _ in 0..n_tensors {
        let info = tensor_info(&mut c)?;
        if !names.insert(info.name().to_string()) {
            return Err(GgufError::DuplicateTensor(info.name().to_string()));
        }
        tensors.push(info);
    }

    let data_offset = align_up(c.offset(), alignment).ok_or(GgufError::Truncated {
        what: "data section",
        offset: c.offset(),
        need: alignment,
        len: buf.len() as u64,
    })?;
    let file_len = buf.len() as u64;
    if !tensors.is_empty() && data_offset > file_len {
        return Err(GgufError::Truncated {
            what: "data section",
            offset: c.offset(),
            need: data_offset - c.offset(),
            len: file_len,
        });
    }
    let data_len = file_len.saturating_sub(data_offset);
    check_tensor_ranges(&tensors, alignment, data_len)?;
    Ok(Parsed {
        version,
        metadata,
        tensors,
        alignment,
        data_offset,
    })
}

fn alignment(metadata: &Metadata) -> Result<u64, GgufError> {
    let Some(value) = metadata.value("general.alignment") else {
        return Ok(DEFAULT_ALIGNMENT);
    };
    let a = value.as_i128().ok_or_else(|| {
        GgufError::BadAlignment(format!("is a {}, not an integer", value.type_description()))
    })?;
    match u64::try_from(a) {
        Ok(a) if a.is_power_of_two() && a <= 1 << 30 => Ok(a),
        _ => Err(GgufError::BadAlignment(format!(
            "{a} is not a power of two up to 2^30"
        ))),
    }
}

fn tensor_info(c: &mut Cursor<'_>) -> Result<TensorInfo, GgufError> {
    let name = c.string("tensor name")?;
    let n_dims = c.u32("tensor dimension count")?;
    if n_dims as usize > MAX_DIMS {
        return Err(GgufError::BadTensorShape {
            name,
            reason: format!("{n_dims} dimensions, at most {MAX_DIMS} are allowed"),
        });
    }
    let mut dims = Vec::with_capacity(n_dims as usize);
    for _ in 0..n_dims {
        dims.push(c.u64("tensor dimension")?);
    }
    let type_id = c.u32("tensor type")?;
    let offset = c.u64("tensor data offset")?;
    let Some(ggml_type) = GgmlType::from_id(type_id) else {
        return Err(GgufError::UnknownTensorType { name, type_id });
    };
    let bad = |reason: String| GgufError::BadTensorShape {
        name: name.clone(),
        reason,
    };
    let mut n_elements: u64 = 1;
    for &d in &dims {
        if d > i64::MAX as u64 {
            return Err(bad(format!("dimension {d} is out of range")));
        }
        n_elements = n_elements
            .checked_mul(d)
            .filter(|&n| n <= i64::MAX as u64)
            .ok_or_else(|| bad(format!("{dims:?} has too many elements")))?;
    }
    // Rows are counted apart from elements: with empty rows (dims[0] == 0) the element
    // count is 0 whatever the other dimensions say.
    let n_rows = dims
        .iter()
        .skip(1)
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= i64::MAX as u64)
        .ok_or_else(|| bad(format!("{dims:?} has too many rows")))?;
    let row_len = dims.first().copied().unwrap_or(1);
    let row_bytes = ggml_type.row_bytes(row_len).ok_or_else(|| {
        bad(format!(
            "row of {row_len} elements is not a multiple of the {ggml_type} block size {}",
            ggml_type.block_size()
        ))
    })?;
    let n_bytes = row_bytes
        .checked_mul(n_rows)
        .ok_or_else(|| bad(format!("{dims:?} of {ggml_type} overflows a byte size")))?;
    Ok(TensorInfo::new(
        name, dims, ggml_type, offset, n_elements, n_rows, n_bytes,
    ))
}

fn align_up(x: u64, alignment: u64) -> Option<u64> {
    Some(x.checked_add(alignment - 1)? & !(alignment - 1))
}

fn check_tensor_ranges(
    tensors: &[TensorInfo],
    alignment: u64,
    data_len: u64,
) -> Result<(), GgufError> {
    for t in tensors {
        if !t.offset().is_multiple_of(alignment) {
            return Err(GgufError::MisalignedTensor {
                name: t.name().to_string(),
                offset: t.offset(),
                alignment,
            });
        }
        let end = t.offset().checked_add(t.n_bytes());
        if end.is_none_or(|end| end > data_len) {
            return Err(GgufError::TensorOutOfBounds {
                name: t.name().to_string(),
                start: t.offset(),
                end: end.unwrap_or(u64::MAX),
                len: data_len,
            });
        }
    }
    let mut order: Vec<usize> = (0..tensors.len())
        .filter(|&i| tensors[i].n_bytes() > 0)
        .collect();
    order.sort_by_key(|&i| tensors[i].offset());
    for pair in order.windows(2) {
        let (a, b) = (&tensors[pair[0]], &tensors[pair[1]]);
        // Ranges were checked above, so the sum cannot overflow.
        if a.offset() + a.n_bytes() > b.offset() {
            return Err(GgufError::OverlappingTensors {
                first: a.name().to_string(),
                second: b.name().to_string(),
            });
        }
    }
    Ok(())
}

/// Name -> index map for the tensor table.
pub fn tensor_index(tensors: &[TensorInfo]) -> HashMap<String, usize> {
    tensors
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name().to_string(), i))
        .collect()
}
