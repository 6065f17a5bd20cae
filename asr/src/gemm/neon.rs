//! NEON kernels (aarch64, where NEON is always present), twins of `scalar.rs`: the f32 6x16
//! GEMM tile and the dot product / scaled add of the decoder's attention. f16 weights are
//! converted by the scalar twin (they are the accuracy-comparison format, not the default).

use std::arch::aarch64::*;

use super::{MR, NR};

/// `tile[r][c] = sum_kk a[r*lda + kk] * panel[kk*NR + c]` for `r < rows`.
pub fn micro_6x16(
    a: &[f32],
    lda: usize,
    rows: usize,
    kb: usize,
    panel: &[f32],
    tile: &mut [f32; MR * NR],
) {
    let ap = super::tile_rows(a, lda, rows, kb, panel);
    // SAFETY: NEON is part of the aarch64 baseline; every pointer stays inside the slices
    // checked above (kk < kb, panel holds kb * NR values, each row pointer has kb values).
    unsafe {
        let mut c = [[vdupq_n_f32(0.0); 4]; MR];
        let pp = panel.as_ptr();
        for kk in 0..kb {
            let b = [
                vld1q_f32(pp.add(kk * NR)),
                vld1q_f32(pp.add(kk * NR + 4)),
                vld1q_f32(pp.add(kk * NR + 8)),
                vld1q_f32(pp.add(kk * NR + 12)),
            ];
            for r in 0..MR {
                let av = vdupq_n_f32(*ap[r].add(kk));
                for q in 0..4 {
                    c[r][q] = vfmaq_f32(c[r][q], av, b[q]);
                }
            }
        }
        for (r, cr) in c.iter().enumerate().take(rows) {
            for (q, v) in cr.iter().enumerate() {
                vst1q_f32(tile.as_mut_ptr().add(r * NR + q * 4), *v);
            }
        }
    }
}

/// `sum w[i] * x[i]` over the common length.
pub fn dot_f32(w: &[f32], x: &[f32]) -> f32 {
    let n = w.len().min(x.len());
    let mut i = 0;
    // SAFETY: NEON is baseline on aarch64; i + 8 <= n bounds both slices.
    let s = unsafe {
        let (mut s0, mut s1) = (vdupq_n_f32(0.0), vdupq_n_f32(0.0));
        while i + 8 <= n {
            s0 = vfmaq_f32(
                s0,
                vld1q_f32(w.as_ptr().add(i)),
                vld1q_f32(x.as_ptr().add(i)),
            );
            s1 = vfmaq_f32(
                s1,
                vld1q_f32(w.as_ptr().add(i + 4)),
                vld1q_f32(x.as_ptr().add(i + 4)),
            );
            i += 8;
        }
        vaddvq_f32(vaddq_f32(s0, s1))
    };
    s + super::scalar::dot_f32(&w[i..n], &x[i..n])
}

/// `y += a * x` over the common length.
pub fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    let n = x.len().min(y.len());
    let mut i = 0;
    // SAFETY: NEON is baseline on aarch64; i + 4 <= n bounds both slices.
    unsafe {
        let av = vdupq_n_f32(a);
        while i + 4 <= n {
            let yv = vld1q_f32(y.as_ptr().add(i));
            vst1q_f32(
                y.as_mut_ptr().add(i),
                vfmaq_f32(yv, av, vld1q_f32(x.as_ptr().add(i))),
            );
            i += 4;
        }
    }
    super::scalar::axpy(a, &x[i..n], &mut y[i..n]);
}
