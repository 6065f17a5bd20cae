//! Why a byte string is not a usable GGUF file.

/// A structural problem in a GGUF file. Carried by `LlmError::Gguf` together with the path;
/// every variant means the file is truncated, corrupt or not GGUF: get a good copy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GgufError {
    #[error("bad magic {found:02x?}: not a GGUF file")]
    BadMagic { found: Vec<u8> },
    #[error("GGUF version {0} is not supported (only versions 2 and 3 are)")]
    UnsupportedVersion(u32),
    #[error("GGUF version field {0:#010x} looks byte-swapped: big-endian files are not supported")]
    BigEndian(u32),
    #[error("truncated: {what} at byte {offset} needs {need} bytes, but the file has {len}")]
    Truncated {
        what: &'static str,
        offset: u64,
        need: u64,
        len: u64,
    },
    #[error("{what} count {count} at byte {offset} cannot fit in the {remaining} bytes left")]
    CountTooLarge {
        what: &'static str,
        count: u64,
        offset: u64,
        remaining: u64,
    },
    #[error("metadata key at byte {offset} is empty")]
    EmptyKey { offset: u64 },
    #[error("duplicate metadata key `{0}`")]
    DuplicateKey(String),
    #[error("metadata key `{key}` has unknown value type id {type_id}")]
    BadValueType { key: String, type_id: u32 },
    #[error("metadata key `{key}`: arrays nested deeper than {max_depth} levels")]
    NestingTooDeep { key: String, max_depth: usize },
    #[error("metadata key `{key}`: bool byte {byte} at byte {offset} is neither 0 nor 1")]
    BadBool { key: String, byte: u8, offset: u64 },
    #[error("{what} at byte {offset} is not valid UTF-8")]
    InvalidUtf8 { what: &'static str, offset: u64 },
    #[error("general.alignment: {0}")]
    BadAlignment(String),
    #[error("duplicate tensor name `{0}`")]
    DuplicateTensor(String),
    #[error("tensor `{name}` has unknown ggml type id {type_id}")]
    UnknownTensorType { name: String, type_id: u32 },
    #[error("tensor `{name}` has a bad shape: {reason}")]
    BadTensorShape { name: String, reason: String },
    #[error("tensor `{name}`: data offset {offset} is not a multiple of the alignment {alignment}")]
    MisalignedTensor {
        name: String,
        offset: u64,
        alignment: u64,
    },
    #[error(
        "tensor `{name}`: data bytes [{start}, {end}) of the data section lie outside its {len} bytes"
    )]
    TensorOutOfBounds {
        name: String,
        start: u64,
        end: u64,
        len: u64,
    },
    #[error("tensors `{first}` and `{second}` overlap in the data section")]
    OverlappingTensors { first: String, second: String },
}
