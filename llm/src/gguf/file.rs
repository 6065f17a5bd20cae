//! A GGUF file opened on a read-only memory map (or held in memory), with zero-copy tensor
//! data views.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::metadata::Metadata;
use super::parse::{parse, tensor_index};
use super::tensor::TensorInfo;
use super::value::FromMeta;
use crate::LlmError;

enum Backing {
    Mmap(Mmap),
    Owned(Vec<u8>),
    /// The mapping was closed after the tensors were copied out ([`GgufFile::detach`]).
    Detached,
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mmap(m) => m,
            Backing::Owned(v) => v,
            Backing::Detached => &[],
        }
    }
}

/// A parsed, validated GGUF file. Metadata is decoded into owned values; tensor data stays
/// in the map (until [`detach`](GgufFile::detach)) and is handed out as `&[u8]` slices.
pub struct GgufFile {
    path: PathBuf,
    backing: Backing,
    version: u32,
    metadata: Metadata,
    tensors: Vec<TensorInfo>,
    by_name: HashMap<String, usize>,
    alignment: u64,
    data_offset: u64,
}

impl std::fmt::Debug for GgufFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GgufFile")
            .field("path", &self.path)
            .field("version", &self.version)
            .field("metadata_entries", &self.metadata.len())
            .field("tensors", &self.tensors.len())
            .finish()
    }
}

impl GgufFile {
    /// Maps and parses the file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, LlmError> {
        let path = path.as_ref().to_path_buf();
        let io = |source| LlmError::Io {
            path: path.clone(),
            source,
        };
        let file = File::open(&path).map_err(io)?;
        // SAFETY: the map is read-only and private to this struct. A file truncated underneath
        // a live map faults (SIGBUS) on access: `Model::load` therefore copies what it uses
        // and closes the map (`detach`) before the model runs.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        Self::from_backing(path, Backing::Mmap(map))
    }

    /// Parses a GGUF image held in memory (tests, freshly written files). Errors name the
    /// path `<memory>`.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, LlmError> {
        Self::from_backing(PathBuf::from("<memory>"), Backing::Owned(bytes))
    }

    fn from_backing(path: PathBuf, backing: Backing) -> Result<Self, LlmError> {
        let parsed = parse(backing.bytes()).map_err(|source| LlmError::Gguf {
            path: path.clone(),
            source,
        })?;
        Ok(Self {
            path,
            by_name: tensor_index(&parsed.tensors),
            backing,
            version: parsed.version,
            metadata: parsed.metadata,
            tensors: parsed.tensors,
            alignment: parsed.alignment,
            data_offset: parsed.data_offset,
        })
    }

    /// Whether tensor data is read from a memory map of the file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.backing, Backing::Mmap(_))
    }

    /// Closes the memory map: metadata and the tensor table stay, tensor data is gone
    /// ([`bytes`](Self::bytes) and [`tensor_data`](Self::tensor_data) return empty slices).
    /// Done once a model has copied what it needs, so nothing done to the file afterwards
    /// (truncation, rewriting) can fault this process.
    pub fn detach(&mut self) {
        if self.is_mapped() {
            self.backing = Backing::Detached;
        }
    }

    /// Drops the vocabulary arrays from the metadata once a
    /// [`Tokenizer`](crate::tokenizer::Tokenizer) holds them: a 150k-token vocabulary's
    /// strings and merges are many small heap blocks, kept for the model's life otherwise
    /// (the 1.5B's peak resident memory is 11 MB lower without them).
    pub fn forget_vocabulary(&mut self) {
        for key in VOCABULARY_KEYS {
            self.metadata.remove(key);
        }
    }

    /// Where the file was opened from (`<memory>` for [`from_bytes`](Self::from_bytes)).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// GGUF format version (2 or 3).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Tensor data alignment (`general.alignment`, default 32).
    pub fn alignment(&self) -> u64 {
        self.alignment
    }

    /// Absolute file offset of the data section.
    pub fn data_offset(&self) -> u64 {
        self.data_offset
    }

    /// The whole file.
    pub fn bytes(&self) -> &[u8] {
        self.backing.bytes()
    }

    /// All metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// Typed metadata value; see [`Metadata::get`].
    pub fn get<'a, T: FromMeta<'a>>(&'a self, key: &str) -> Result<T, LlmError> {
        self.metadata.get(key)
    }

    /// Typed metadata value or `None` if absent; see [`Metadata::get_opt`].
    pub fn get_opt<'a, T: FromMeta<'a>>(&'a self, key: &str) -> Result<Option<T>, LlmError> {
        self.metadata.get_opt(key)
    }

    /// `general.architecture`.
    pub fn architecture(&self) -> Result<&str, LlmError> {
        self.metadata.architecture()
    }

    /// Architecture-prefixed value: `get_arch::<u32>("block_count")`.
    pub fn get_arch<'a, T: FromMeta<'a>>(&'a self, suffix: &str) -> Result<T, LlmError> {
        self.metadata.get_arch(suffix)
    }

    /// Architecture-prefixed value or `None` if absent.
    pub fn get_arch_opt<'a, T: FromMeta<'a>>(
        &'a self,
        suffix: &str,
    ) -> Result<Option<T>, LlmError> {
        self.metadata.get_arch_opt(suffix)
    }

    /// The tensor table in file order.
    pub fn tensors(&self) -> &[TensorInfo] {
        &self.tensors
    }

    /// The tensor named `name`.
    pub fn tensor(&self, name: &str) -> Option<&TensorInfo> {
        self.by_name.get(name).map(|&i| &self.tensors[i])
    }

    /// The tensor named `name`, or `LlmError::MissingTensor`.
    pub fn require_tensor(&self, name: &str) -> Result<&TensorInfo, LlmError> {
        self.tensor(name).ok_or_else(|| LlmError::MissingTensor {
            name: name.to_string(),
        })
    }

    /// The bytes of `info` (zero-copy). `info` must come from this file; an info from
    /// another file whose range does not fit yields an empty slice rather than a panic.
    pub fn tensor_data(&self, info: &TensorInfo) -> &[u8] {
        let start = self.data_offset.checked_add(info.offset());
        let end = start.and_then(|s| s.checked_add(info.n_bytes()));
        match (start, end) {
            (Some(s), Some(e)) => usize::try_from(s)
                .ok()
                .zip(usize::try_from(e).ok())
                .and_then(|(s, e)| self.bytes().get(s..e))
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Info and bytes of the tensor named `name`, or `LlmError::MissingTensor`.
    pub fn tensor_bytes(&self, name: &str) -> Result<(&TensorInfo, &[u8]), LlmError> {
        let info = self.require_tensor(name)?;
        Ok((info, self.tensor_data(info)))
    }
}

/// The metadata arrays a tokenizer is built from (see [`GgufFile::forget_vocabulary`]).
const VOCABULARY_KEYS: [&str; 4] = [
    "tokenizer.ggml.tokens",
    "tokenizer.ggml.merges",
    "tokenizer.ggml.token_type",
    "tokenizer.ggml.scores",
];
