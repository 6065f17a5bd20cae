//! Attention of one query group over an f16 KV cache: the query heads that share a KV head
//! (GQA) are scored together, so every key and value is loaded once for all of them. Keys are
//! stored transposed (`head_dim` rows of positions) and values row by row, which lets both
//! products run as broadcast-FMAs without horizontal sums. Scalar reference plus AVX2; other
//! CPUs use the reference (auto-vectorized).

mod scalar;

#[cfg(target_arch = "x86_64")]
mod avx2;

#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use half::f16;

use crate::{Isa, KernelError};

/// One attention problem for a group of `heads` queries.
#[derive(Debug)]
pub struct GroupAttention<'a> {
    /// `heads x head_dim` query values.
    pub q: &'a [f32],
    pub heads: usize,
    pub head_dim: usize,
    /// Keys transposed: `head_dim` rows of `stride` positions; positions `0..len` are used.
    pub keys_t: &'a [f16],
    pub stride: usize,
    /// Values: `len` (or more) rows of `head_dim`.
    pub values: &'a [f16],
    /// Positions attended (all of them: the caller applies causality through `len`).
    pub len: usize,
    /// Score scale, usually `1 / sqrt(head_dim)`.
    pub scale: f32,
}

type AttendFn = fn(&GroupAttention<'_>, &mut [f32], &mut [f32]);

fn kernel_for(isa: Isa) -> AttendFn {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::AvxVnni | Isa::Avx512Vnni | Isa::Amx => avx2::attend,
        _ => scalar::attend,
    }
}

impl GroupAttention<'_> {
    fn check(&self, scores: &[f32], out: &[f32]) -> Result<(), KernelError> {
        let (g, hd, len) = (self.heads, self.head_dim, self.len);
        let ok = g > 0
            && hd > 0
            && len > 0
            && self.q.len() >= g * hd
            && self.stride >= len
            && self.keys_t.len() >= (hd - 1) * self.stride + len
            && self.values.len() >= len * hd
            && scores.len() >= g * len
            && out.len() >= g * hd;
        if ok {
            Ok(())
        } else {
            Err(KernelError::Shape(format!(
                "attention of {g} heads x {hd} over {len} positions (stride {}) with buffers q {}, keys {}, values {}, scores {}, out {}",
                self.stride,
                self.q.len(),
                self.keys_t.len(),
                self.values.len(),
                scores.len(),
                out.len()
            )))
        }
    }

    /// Writes `softmax(q·Kᵀ·scale)·V` for each head into `out` (`heads x head_dim`), using
    /// `scores` (at least `heads x len`) as scratch.
    pub fn run(&self, scores: &mut [f32], out: &mut [f32]) -> Result<(), KernelError> {
        static KERNEL: OnceLock<AttendFn> = OnceLock::new();
        self.check(scores, out)?;
        (KERNEL.get_or_init(|| kernel_for(Isa::detect())))(self, scores, out);
        Ok(())
    }

    /// [`GroupAttention::run`] with the kernels of `isa` (parity tests, comparisons).
    pub fn run_with(
        &self,
        isa: Isa,
        scores: &mut [f32],
        out: &mut [f32],
    ) -> Result<(), KernelError> {
        self.check(scores, out)?;
        kernel_for(isa)(self, scores, out);
        Ok(())
    }
}
