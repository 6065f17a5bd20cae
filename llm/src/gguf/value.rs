//! GGUF metadata values: the typed value enum, its on-disk type ids, and typed access.

use std::fmt;

/// The on-disk type id of a GGUF metadata value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum MetaType {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
}

impl MetaType {
    /// The type with on-disk id `id`.
    pub fn from_id(id: u32) -> Option<Self> {
        use MetaType::*;
        Some(match id {
            0 => U8,
            1 => I8,
            2 => U16,
            3 => I16,
            4 => U32,
            5 => I32,
            6 => F32,
            7 => Bool,
            8 => String,
            9 => Array,
            10 => U64,
            11 => I64,
            12 => F64,
            _ => return None,
        })
    }

    /// The on-disk id.
    pub fn id(self) -> u32 {
        self as u32
    }

    /// Smallest number of bytes one value of this type takes in a file (a string needs
    /// its 8-byte length, an array its 4-byte type and 8-byte count). Used to bound counts.
    pub fn min_encoded_size(self) -> u64 {
        use MetaType::*;
        match self {
            U8 | I8 | Bool => 1,
            U16 | I16 => 2,
            U32 | I32 | F32 => 4,
            U64 | I64 | F64 | String => 8,
            Array => 12,
        }
    }

    /// Lower-case name used in error messages.
    pub fn name(self) -> &'static str {
        use MetaType::*;
        match self {
            U8 => "u8",
            I8 => "i8",
            U16 => "u16",
            I16 => "i16",
            U32 => "u32",
            I32 => "i32",
            F32 => "f32",
            Bool => "bool",
            String => "string",
            Array => "array",
            U64 => "u64",
            I64 => "i64",
            F64 => "f64",
        }
    }
}

impl fmt::Display for MetaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One metadata value. Owned, so a GGUF writer can build and serialize it too.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(String),
    Array(MetaArray),
    U64(u64),
    I64(i64),
    F64(f64),
}

/// A homogeneous metadata array, stored as a typed vector.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaArray {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    Bool(Vec<bool>),
    String(Vec<String>),
    Array(Vec<MetaArray>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl MetaValue {
    /// The on-disk type of this value.
    pub fn meta_type(&self) -> MetaType {
        match self {
            MetaValue::U8(_) => MetaType::U8,
            MetaValue::I8(_) => MetaType::I8,
            MetaValue::U16(_) => MetaType::U16,
            MetaValue::I16(_) => MetaType::I16,
            MetaValue::U32(_) => MetaType::U32,
            MetaValue::I32(_) => MetaType::I32,
            MetaValue::F32(_) => MetaType::F32,
            MetaValue::Bool(_) => MetaType::Bool,
            MetaValue::String(_) => MetaType::String,
            MetaValue::Array(_) => MetaType::Array,
            MetaValue::U64(_) => MetaType::U64,
            MetaValue::I64(_) => MetaType::I64,
            MetaValue::F64(_) => MetaType::F64,
        }
    }

    /// A description of the type for error messages, e.g. `u32` or `array of string`.
    pub fn type_description(&self) -> String {
        match self {
            MetaValue::Array(a) => format!("array of {}", a.element_type()),
            v => v.meta_type().name().to_string(),
        }
    }

    /// The value as a signed integer if it is any integer type (u64 above i64::MAX: None).
    pub fn as_i128(&self) -> Option<i128> {
        Some(match *self {
            MetaValue::U8(v) => v.into(),
            MetaValue::I8(v) => v.into(),
            MetaValue::U16(v) => v.into(),
            MetaValue::I16(v) => v.into(),
            MetaValue::U32(v) => v.into(),
            MetaValue::I32(v) => v.into(),
            MetaValue::U64(v) => v.into(),
            MetaValue::I64(v) => v.into(),
            _ => return None,
        })
    }

    /// Appends the value's type id and payload in GGUF encoding (little-endian).
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.meta_type().id().to_le_bytes());
        self.encode_payload(out);
    }

    /// Appends only the payload (no type id), as array elements are stored.
    pub fn encode_payload(&self, out: &mut Vec<u8>) {
        match self {
            MetaValue::U8(v) => out.push(*v),
            MetaValue::I8(v) => out.extend_from_slice(&v.to_le_bytes()),
            MetaValue::U16(v) => out.extend_from_slice(&v.to_le_bytes()),
            MetaValue::I16(v) => out.extend_from_slice(&v.to_le_bytes()),
            MetaValue::U32(v) => out.extend_from_slice(&v.to_le_bytes()),
            MetaValue::I32(v) => out.extend_from_slice(&v.to_le_bytes()),
            MetaValue::F32(v) => out.extend_from_slice(&v.to_le_bytes()),
            MetaValue::Bool(v) => out.push(u8::from(*v)),
            MetaValue::String(s) => encode_str(s, out),
            MetaValue::Array(a) => a.encode(out),
            MetaValue::U64(v) => out.extend_from_slice(&v.to_le_bytes()),
            MetaValue::I64(v) => out.extend_from_slice(&v.to_le_bytes()),
            MetaValue::F64(v) => out.extend_from_slice(&v.to_le_bytes()),
        }
    }
}

/// Appends a GGUF string: u64 byte length, then the UTF-8 bytes.
pub fn encode_str(s: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

macro_rules! encode_le_all {
    ($v:expr, $out:expr) => {
        for x in $v {
            $out.extend_from_slice(&x.to_le_bytes());
        }
    };
}

impl MetaArray {
    /// The type of the elements.
    pub fn element_type(&self) -> MetaType {
        match self {
            MetaArray::U8(_) => MetaType::U8,
            MetaArray::I8(_) => MetaType::I8,
            MetaArray::U16(_) => MetaType::U16,
            MetaArray::I16(_) => MetaType::I16,
            MetaArray::U32(_) => MetaType::U32,
            MetaArray::I32(_) => MetaType::I32,
            MetaArray::F32(_) => MetaType::F32,
            MetaArray::Bool(_) => MetaType::Bool,
            MetaArray::String(_) => MetaType::String,
            MetaArray::Array(_) => MetaType::Array,
            MetaArray::U64(_) => MetaType::U64,
            MetaArray::I64(_) => MetaType::I64,
            MetaArray::F64(_) => MetaType::F64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            MetaArray::U8(v) => v.len(),
            MetaArray::I8(v) => v.len(),
            MetaArray::U16(v) => v.len(),
            MetaArray::I16(v) => v.len(),
            MetaArray::U32(v) => v.len(),
            MetaArray::I32(v) => v.len(),
            MetaArray::F32(v) => v.len(),
            MetaArray::Bool(v) => v.len(),
            MetaArray::String(v) => v.len(),
            MetaArray::Array(v) => v.len(),
            MetaArray::U64(v) => v.len(),
            MetaArray::I64(v) => v.len(),
            MetaArray::F64(v) => v.len(),
        }
    }

    /// True if the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a signed integer, if this is an integer array and `i` is in range.
    pub fn int_at(&self, i: usize) -> Option<i128> {
        Some(match self {
            MetaArray::U8(v) => (*v.get(i)?).into(),
            MetaArray::I8(v) => (*v.get(i)?).into(),
            MetaArray::U16(v) => (*v.get(i)?).into(),
            MetaArray::I16(v) => (*v.get(i)?).into(),
            MetaArray::U32(v) => (*v.get(i)?).into(),
            MetaArray::I32(v) => (*v.get(i)?).into(),
            MetaArray::U64(v) => (*v.get(i)?).into(),
            MetaArray::I64(v) => (*v.get(i)?).into(),
            _ => return None,
        })
    }

    /// Appends element type id, u64 count and the elements in GGUF encoding.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.element_type().id().to_le_bytes());
        out.extend_from_slice(&(self.len() as u64).to_le_bytes());
        match self {
            MetaArray::U8(v) => out.extend_from_slice(v),
            MetaArray::I8(v) => encode_le_all!(v, out),
            MetaArray::U16(v) => encode_le_all!(v, out),
            MetaArray::I16(v) => encode_le_all!(v, out),
            MetaArray::U32(v) => encode_le_all!(v, out),
            MetaArray::I32(v) => encode_le_all!(v, out),
            MetaArray::F32(v) => encode_le_all!(v, out),
            MetaArray::Bool(v) => out.extend(v.iter().map(|&b| u8::from(b))),
            MetaArray::String(v) => v.iter().for_each(|s| encode_str(s, out)),
            MetaArray::Array(v) => v.iter().for_each(|a| a.encode(out)),
            MetaArray::U64(v) => encode_le_all!(v, out),
            MetaArray::I64(v) => encode_le_all!(v, out),
            MetaArray::F64(v) => encode_le_all!(v, out),
        }
    }
}

/// Conversion from a metadata value for typed getters (`get::<u32>(key)`).
///
/// Integer targets accept any integer value that fits losslessly (files disagree on
/// whether a count is u32, i32 or u64); `f32` accepts f32 and f64; slices need the
/// exact element type.
pub trait FromMeta<'a>: Sized {
    /// What the getter expected, for error messages.
    const EXPECTED: &'static str;
    /// The converted value, or `None` if the value has another type or does not fit.
    fn from_meta(value: &'a MetaValue) -> Option<Self>;
}

macro_rules! from_meta_int {
    ($($t:ty => $name:literal),*) => {$(
        impl<'a> FromMeta<'a> for $t {
            const EXPECTED: &'static str = $name;
            fn from_meta(value: &'a MetaValue) -> Option<Self> {
                value.as_i128().and_then(|v| <$t>::try_from(v).ok())
            }
        }
    )*};
}
from_meta_int!(u8 => "u8", i8 => "i8", u16 => "u16", i16 => "i16", u32 => "u32",
    i32 => "i32", u64 => "u64", i64 => "i64", usize => "an unsigned integer");

impl<'a> FromMeta<'a> for f32 {
    const EXPECTED: &'static str = "f32";
    fn from_meta(value: &'a MetaValue) -> Option<Self> {
        match *value {
            MetaValue::F32(v) => Some(v),
            MetaValue::F64(v) => Some(v as f32),
            _ => None,
        }
    }
}

impl<'a> FromMeta<'a> for f64 {
    const EXPECTED: &'static str = "f64";
    fn from_meta(value: &'a MetaValue) -> Option<Self> {
        match *value {
            MetaValue::F32(v) => Some(v.into()),
            MetaValue::F64(v) => Some(v),
            _ => None,
        }
    }
}

impl<'a> FromMeta<'a> for bool {
    const EXPECTED: &'static str = "bool";
    fn from_meta(value: &'a MetaValue) -> Option<Self> {
        match *value {
            MetaValue::Bool(v) => Some(v),
            _ => None,
        }
    }
}

impl<'a> FromMeta<'a> for &'a str {
    const EXPECTED: &'static str = "string";
    fn from_meta(value: &'a MetaValue) -> Option<Self> {
        match value {
            MetaValue::String(s) => Some(s),
            _ => None,
        }
    }
}

impl<'a> FromMeta<'a> for &'a MetaArray {
    const EXPECTED: &'static str = "array";
    fn from_meta(value: &'a MetaValue) -> Option<Self> {
        match value {
            MetaValue::Array(a) => Some(a),
            _ => None,
        }
    }
}

impl<'a> FromMeta<'a> for &'a MetaValue {
    const EXPECTED: &'static str = "any value";
    fn from_meta(value: &'a MetaValue) -> Option<Self> {
        Some(value)
    }
}

macro_rules! from_meta_slice {
    ($($variant:ident : $t:ty => $name:literal),*) => {$(
        impl<'a> FromMeta<'a> for &'a [$t] {
            const EXPECTED: &'static str = $name;
            fn from_meta(value: &'a MetaValue) -> Option<Self> {
                match value {
                    MetaValue::Array(MetaArray::$variant(v)) => Some(v),
                    _ => None,
                }
            }
        }
    )*};
}
from_meta_slice!(U8: u8 => "array of u8", I8: i8 => "array of i8", U16: u16 => "array of u16",
    I16: i16 => "array of i16", U32: u32 => "array of u32", I32: i32 => "array of i32",
    F32: f32 => "array of f32", Bool: bool => "array of bool",
    String: String => "array of string", U64: u64 => "array of u64",
    I64: i64 => "array of i64", F64: f64 => "array of f64");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_getters_convert_losslessly_only() {
        assert_eq!(u32::from_meta(&MetaValue::U64(30)), Some(30));
        assert_eq!(u32::from_meta(&MetaValue::I32(-1)), None);
        assert_eq!(u32::from_meta(&MetaValue::U64(1 << 40)), None);
        assert_eq!(i64::from_meta(&MetaValue::U8(7)), Some(7));
        assert_eq!(u32::from_meta(&MetaValue::F32(1.0)), None);
        assert_eq!(f32::from_meta(&MetaValue::F64(0.5)), Some(0.5));
        assert_eq!(<&str>::from_meta(&MetaValue::String("x".into())), Some("x"));
        assert_eq!(
            <&[i32]>::from_meta(&MetaValue::Array(MetaArray::I32(vec![1]))),
            Some(&[1][..])
        );
        assert_eq!(
            <&[u32]>::from_meta(&MetaValue::Array(MetaArray::I32(vec![1]))),
            None
        );
    }

    #[test]
    fn type_ids_round_trip() {
        for id in 0..13 {
            assert_eq!(MetaType::from_id(id).map(MetaType::id), Some(id));
        }
        assert_eq!(MetaType::from_id(13), None);
        let v = MetaValue::Array(MetaArray::String(vec!["a".into()]));
        assert_eq!(v.type_description(), "array of string");
    }
}
