//! GGUF v3 writer: metadata, tensor table, aligned tensor data, in the layout the reader in
//! [`crate::gguf`] (and llama.cpp) expects. Tensor data is produced on demand while writing,
//! so large models stream to disk without being held in memory.

use std::io::Write;

use pocket_kernels::DType;

use crate::LlmError;
use crate::gguf::{DEFAULT_ALIGNMENT, GGUF_MAGIC, MetaValue, encode_str};

/// One tensor to write: GGUF dims (`dims[0]` is the row length) and element format.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorSpec {
    pub name: String,
    pub dims: Vec<u64>,
    pub dtype: DType,
}

impl TensorSpec {
    /// Bytes of the tensor's data.
    pub fn n_bytes(&self) -> Option<u64> {
        let row = *self.dims.first()? as usize;
        let rows = self
            .dims
            .iter()
            .skip(1)
            .try_fold(1u64, |a, &d| a.checked_mul(d))?;
        let rb = self.dtype.row_bytes(row)? as u64;
        rb.checked_mul(rows)
    }
}

/// Collects metadata and tensor specs, then writes the file.
#[derive(Debug, Default)]
pub struct GgufWriter {
    meta: Vec<(String, MetaValue)>,
    tensors: Vec<TensorSpec>,
}

impl GgufWriter {
    pub fn new() -> GgufWriter {
        GgufWriter::default()
    }

    /// Adds (or replaces) a metadata entry.
    pub fn meta(&mut self, key: &str, value: MetaValue) -> &mut Self {
        match self.meta.iter_mut().find(|(k, _)| k == key) {
            Some(e) => e.1 = value,
            None => self.meta.push((key.to_string(), value)),
        }
        self
    }

    /// Declares a tensor; its bytes are asked for by [`GgufWriter::write`].
    pub fn tensor(
        &mut self,
        name: &str,
        dims: &[u64],
        dtype: DType,
    ) -> Result<&mut Self, LlmError> {
        let spec = TensorSpec {
            name: name.to_string(),
            dims: dims.to_vec(),
            dtype,
        };
        if dims.is_empty() || dims.len() > 4 || spec.n_bytes().is_none() {
            return Err(LlmError::InvalidModel {
                reason: format!("cannot write {name}: shape {dims:?} in {dtype:?}"),
            });
        }
        if self.tensors.iter().any(|t| t.name == name) {
            return Err(LlmError::InvalidModel {
                reason: format!("tensor {name} declared twice"),
            });
        }
        self.tensors.push(spec);
        Ok(self)
    }

    pub fn tensors(&self) -> &[TensorSpec] {
        &self.tensors
    }

    /// Tensor specs to alter (tests write deliberately broken files).
    #[cfg(test)]
    pub(crate) fn tensors_mut(&mut self) -> &mut Vec<TensorSpec> {
        &mut self.tensors
    }

    /// Writes the file: header, metadata, tensor table, then each tensor's bytes as
    /// `data(index, spec)` returns them (they must be exactly `spec.n_bytes()` long), each
    /// aligned to 32 bytes. Returns the bytes written.
    pub fn write<W: Write>(
        &self,
        out: &mut W,
        mut data: impl FnMut(usize, &TensorSpec) -> Result<Vec<u8>, LlmError>,
    ) -> Result<u64, LlmError> {
        let align = DEFAULT_ALIGNMENT;
        let mut head = Vec::new();
        head.extend_from_slice(&GGUF_MAGIC);
        head.extend_from_slice(&3u32.to_le_bytes());
        head.extend_from_slice(&(self.tensors.len() as u64).to_le_bytes());
        head.extend_from_slice(&(self.meta.len() as u64).to_le_bytes());
        for (k, v) in &self.meta {
            encode_str(k, &mut head);
            v.encode(&mut head);
        }
        let mut offset = 0u64;
        for t in &self.tensors {
            encode_str(&t.name, &mut head);
            head.extend_from_slice(&(t.dims.len() as u32).to_le_bytes());
            for d in &t.dims {
                head.extend_from_slice(&d.to_le_bytes());
            }
            head.extend_from_slice(&t.dtype.ggml_id().to_le_bytes());
            head.extend_from_slice(&offset.to_le_bytes());
            offset = (offset + t.n_bytes().unwrap_or(0)).next_multiple_of(align);
        }
        let pad = |n: u64| vec![0u8; (n.next_multiple_of(align) - n) as usize];
        let io = |source| LlmError::Io {
            path: "<gguf output>".into(),
            source,
        };
        let mut written = head.len() as u64;
        out.write_all(&head).map_err(io)?;
        let p = pad(written);
        out.write_all(&p).map_err(io)?;
        written += p.len() as u64;
        for (i, t) in self.tensors.iter().enumerate() {
            let bytes = data(i, t)?;
            let want = t.n_bytes().unwrap_or(0);
            if bytes.len() as u64 != want {
                return Err(LlmError::InvalidModel {
                    reason: format!("{}: {} bytes of data, expected {want}", t.name, bytes.len()),
                });
            }
            out.write_all(&bytes).map_err(io)?;
            let p = pad(want);
            out.write_all(&p).map_err(io)?;
            written += want + p.len() as u64;
        }
        out.flush().map_err(io)?;
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gguf::GgufFile;

    #[test]
    fn written_files_read_back() {
        let mut w = GgufWriter::new();
        w.meta("general.architecture", MetaValue::String("llama".into()));
        w.meta("llama.block_count", MetaValue::U32(3));
        w.tensor("a", &[32, 2], DType::Q8_0).expect("a");
        w.tensor("b", &[5], DType::F32).expect("b");
        let x: Vec<f32> = (0..64).map(|i| i as f32 / 10.0).collect();
        let mut bytes = Vec::new();
        w.write(&mut bytes, |i, t| match i {
            0 => Ok(pocket_kernels::quant::quantize_bytes(t.dtype, &x)?),
            _ => Ok(pocket_kernels::quant::quantize_bytes(t.dtype, &x[..5])?),
        })
        .expect("write");
        let f = GgufFile::from_bytes(bytes).expect("read back");
        assert_eq!(f.get_arch::<u32>("block_count").expect("meta"), 3);
        let (info, data) = f.tensor_bytes("b").expect("b");
        assert_eq!(info.dims(), [5]);
        assert_eq!(&data[4..8], &0.1f32.to_le_bytes());
        assert_eq!(f.tensor_bytes("a").expect("a").1.len(), 68);
        assert!(w.tensor("a", &[32], DType::F32).is_err());
        assert!(w.tensor("c", &[33, 2], DType::Q4_1).is_err());
        // Empty rows, but 2^80 of them: the row count must not overflow.
        assert!(w.tensor("d", &[0, 1 << 40, 1 << 40], DType::F32).is_err());
    }
}
