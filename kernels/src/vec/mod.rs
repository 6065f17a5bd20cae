//! Vector kernels for the parts of a forward pass around the matmuls: f16 dot products and
//! scaled adds (attention over an f16 KV cache), SiLU-gating, and exp for softmax. Picked at
//! run time like the tiles; every SIMD version has a scalar twin and a parity test.

mod scalar;

#[cfg(target_arch = "x86_64")]
mod avx2;

#[cfg(target_arch = "aarch64")]
mod neon;

#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use half::f16;

use crate::Isa;

/// One family's vector kernels.
#[derive(Clone, Copy)]
pub(crate) struct VecOps {
    pub dot_f16: fn(&[f16], &[f32]) -> f32,
    pub axpy_f16: fn(&mut [f32], f32, &[f16]),
    pub silu_mul: fn(&mut [f32], &[f32]),
    pub exp_sub: fn(&mut [f32], f32) -> f32,
}

pub(crate) fn ops_for(isa: Isa) -> VecOps {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::AvxVnni | Isa::Avx512Vnni | Isa::Amx => avx2::OPS,
        #[cfg(target_arch = "aarch64")]
        Isa::Neon | Isa::NeonDot => neon::OPS,
        _ => scalar::OPS,
    }
}

fn ops() -> &'static VecOps {
    static OPS: OnceLock<VecOps> = OnceLock::new();
    OPS.get_or_init(|| ops_for(Isa::detect()))
}

/// `Σ a[i] * b[i]` over `min(a.len(), b.len())` elements (a query against an f16 key row).
#[inline]
pub fn dot_f16(a: &[f16], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    (ops().dot_f16)(&a[..n], &b[..n])
}

/// `y[i] += alpha * x[i]` over `min(y.len(), x.len())` elements (adds a weighted f16 value row).
#[inline]
pub fn axpy_f16(y: &mut [f32], alpha: f32, x: &[f16]) {
    let n = y.len().min(x.len());
    (ops().axpy_f16)(&mut y[..n], alpha, &x[..n])
}

/// `gate[i] = silu(gate[i]) * up[i]` (SwiGLU), over `min(gate.len(), up.len())` elements.
#[inline]
pub fn silu_mul(gate: &mut [f32], up: &[f32]) {
    let n = gate.len().min(up.len());
    (ops().silu_mul)(&mut gate[..n], &up[..n])
}

/// `x[i] = exp(x[i] - max)`; returns `Σ x[i]` afterwards (the softmax numerator and
/// denominator). Relative error of each exp below 1e-6.
#[inline]
pub fn exp_sub(x: &mut [f32], max: f32) -> f32 {
    (ops().exp_sub)(x, max)
}

/// `exp(x)` with the same polynomial the vector kernels use (portable).
pub fn exp_approx(x: f32) -> f32 {
    scalar::exp(x)
}
