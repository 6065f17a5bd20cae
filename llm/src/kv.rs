//! The f16 key/value cache of one session, allocated once for its whole context. Per layer
//! and KV head: keys transposed (`[head_dim][position]`, so scoring a query is a run of
//! broadcast-FMAs over positions) and values by position (`[position][head_dim]`). Pages are
//! zero-filled lazily by the OS: memory grows with the positions actually used.

use half::f16;
use half::slice::HalfBitsSliceExt;

use crate::LlmError;
use crate::config::{ModelConfig, RopeStyle};

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

    /// Keys of `head` in `layer`, transposed: `head_dim` rows of `capacity` positions.
    pub fn keys_t(&self, layer: usize, head: usize) -> &[f16] {
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
        let (hd, kvd, cap) = (self.head_dim, self.n_kv * self.head_dim, self.capacity);
        for h in 0..self.n_kv {
            let o = self.offset(layer, true, h) + pos * hd;
            let dst: &mut [f16] = self.data[o..o + n * hd].reinterpret_cast_mut();
            for t in 0..n {
                pocket_kernels::quant::f32_to_f16_row(
                    &v[t * kvd + h * hd..][..hd],
                    &mut dst[t * hd..][..hd],
                );
            }
            let o = self.offset(layer, false, h);
            let keys: &mut [f16] = self.data[o..o + hd * cap].reinterpret_cast_mut();
            for t in 0..n {
                for (d, &x) in k[t * kvd + h * hd..][..hd].iter().enumerate() {
                    keys[d * cap + pos + t] = f16::from_f32(x);
                }
            }
        }
    }

    /// Removes positions `start..end` of the `len` in use: later positions move down by
    /// `end - start`, their keys rotated back by that many positions (RoPE rotations compose,
    /// so a key computed at `p` becomes the key at `p - delta` without running the model;
    /// llama.cpp's context shift does the same). Values just move. The caller checks
    /// `start <= end <= len <= capacity`.
    pub fn remove(&mut self, cfg: &ModelConfig, start: usize, end: usize, len: usize) {
        let (hd, cap, delta) = (self.head_dim, self.capacity, end - start);
        let moved = len - end;
        if delta == 0 {
            return;
        }
        let (cos, sin) = shift_angles(cfg, delta);
        let pairs = cfg.rope_dims / 2;
        for layer in 0..self.data.len() / (2 * self.n_kv * self.head_len()) {
            for h in 0..self.n_kv {
                let o = self.offset(layer, true, h);
                let values = &mut self.data[o..o + cap * hd];
                values.copy_within(end * hd..len * hd, start * hd);
                let o = self.offset(layer, false, h);
                let keys = &mut self.data[o..o + hd * cap];
                for d in 0..hd {
                    keys.copy_within(d * cap + end..d * cap + len, d * cap + start);
                }
                for i in 0..pairs {
                    let (j0, j1) = match cfg.rope_style {
                        RopeStyle::Adjacent => (2 * i, 2 * i + 1),
                        RopeStyle::Neox => (i, i + pairs),
                    };
                    let (c, s) = (cos[i], sin[i]);
                    for p in start..start + moved {
                        let a = f16::from_bits(keys[j0 * cap + p]).to_f32();
                        let b = f16::from_bits(keys[j1 * cap + p]).to_f32();
                        keys[j0 * cap + p] = f16::from_f32(a * c + b * s).to_bits();
                        keys[j1 * cap + p] = f16::from_f32(b * c - a * s).to_bits();
                    }
                }
            }
        }
    }
}

/// cos/sin of the rotation by `delta` positions for every rotated pair: pair `i` turns by
/// `freq_scale * delta * base^(-2i/rope_dims)` per the forward pass's RoPE.
fn shift_angles(cfg: &ModelConfig, delta: usize) -> (Vec<f32>, Vec<f32>) {
    let pairs = cfg.rope_dims / 2;
    let theta_scale = f64::from(cfg.rope_base).powf(-2.0 / cfg.rope_dims as f64);
    (0..pairs)
        .map(|i| {
            let a = f64::from(cfg.rope_freq_scale) * delta as f64 * theta_scale.powi(i as i32);
            (a.cos() as f32, a.sin() as f32)
        })
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Arch;

    #[test]
    fn written_keys_and_values_read_back() {
        let cfg = ModelConfig {
            arch: Arch::Qwen3,
            n_layers: 2,
            d_model: 64,
            n_heads: 4,
            n_kv_heads: 2,
            head_dim: 16,
            ffn_dim: 64,
            vocab_size: 10,
            train_ctx: 100,
            rms_eps: 1e-6,
            rope_base: 1e4,
            rope_dims: 16,
            rope_freq_scale: 1.0,
            rope_style: RopeStyle::Neox,
        };
        let mut kv = KvCache::new(&cfg, 8).expect("kv");
        let k: Vec<f32> = (0..3 * 32).map(|i| i as f32).collect();
        let v: Vec<f32> = (0..3 * 32).map(|i| -(i as f32)).collect();
        kv.write(1, 2, 3, &k, &v);
        for t in 0..3 {
            for h in 0..2 {
                for d in 0..16 {
                    assert_eq!(
                        kv.keys_t(1, h)[d * 8 + 2 + t].to_f32(),
                        k[t * 32 + h * 16 + d]
                    );
                    assert_eq!(
                        kv.values(1, h)[(2 + t) * 16 + d].to_f32(),
                        v[t * 32 + h * 16 + d]
                    );
                }
            }
        }
        assert!(kv.keys_t(0, 0).iter().all(|x| x.to_f32() == 0.0));
    }
}
