//! The f16 key/value cache of one session, allocated once for its whole context. Layout per
//! layer: keys then values, each `[kv_head][position][head_dim]`, so one head's history is
//! contiguous for the attention loops. Pages are zero-filled lazily by the OS: memory grows
//! with the positions actually used.

use half::f16;
use half::slice::HalfBitsSliceExt;

use crate::LlmError;
use crate::config::ModelConfig;

pub(crate) struct KvCache {
    /// f16 bits (allocated as `u16` so the allocation is zeroed lazily by the OS).
    data: Vec<u16>,
    n_kv: usize,
    head_dim: usize,
    capacity: usize,
}

impl KvCache {
    pub fn new(cfg: &ModelConfig, capacity: usize) -> Result<KvCache, LlmError> {
        let n = cfg
            .n_layers
            .checked_mul(2 * cfg.n_kv_heads)
            .and_then(|v| v.checked_mul(capacity))
            .and_then(|v| v.checked_mul(cfg.head_dim))
            .filter(|&v| v <= isize::MAX as usize / 2)
            .ok_or_else(|| LlmError::InvalidSession {
                reason: format!("a KV cache of {capacity} positions is too large"),
            })?;
        Ok(KvCache {
            data: vec![0u16; n],
            n_kv: cfg.n_kv_heads,
            head_dim: cfg.head_dim,
            capacity,
        })
    }

    /// Positions the cache holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.data.len() * 2
    }

    fn head_len(&self) -> usize {
        self.capacity * self.head_dim
    }

    fn offset(&self, layer: usize, value: bool, head: usize) -> usize {
        ((layer * 2 + usize::from(value)) * self.n_kv + head) * self.head_len()
    }

    /// Keys of `head` in `layer`: `capacity x head_dim`.
    pub fn keys(&self, layer: usize, head: usize) -> &[f16] {
        let o = self.offset(layer, false, head);
        self.data[o..o + self.head_len()].reinterpret_cast()
    }

    /// Values of `head` in `layer`: `capacity x head_dim`.
    pub fn values(&self, layer: usize, head: usize) -> &[f16] {
        let o = self.offset(layer, true, head);
        self.data[o..o + self.head_len()].reinterpret_cast()
    }

    /// Stores the keys and values of `n` consecutive positions from `pos`: `k` and `v` are
    /// `n x (n_kv * head_dim)` row-major. The caller checks `pos + n <= capacity`.
    pub fn write(&mut self, layer: usize, pos: usize, n: usize, k: &[f32], v: &[f32]) {
        let (hd, kvd) = (self.head_dim, self.n_kv * self.head_dim);
        for (value, src) in [(false, k), (true, v)] {
            for h in 0..self.n_kv {
                let o = self.offset(layer, value, h) + pos * hd;
                let dst: &mut [f16] = self.data[o..o + n * hd].reinterpret_cast_mut();
                for t in 0..n {
                    pocket_kernels::quant::f32_to_f16_row(
                        &src[t * kvd + h * hd..][..hd],
                        &mut dst[t * hd..][..hd],
                    );
                }
            }
        }
    }
}
