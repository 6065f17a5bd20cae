//! Portable scalar twins of the SIMD kernels (reference and fallback).

use super::{MR, NR};

pub fn f16_to_f32(src: &[u16], dst: &mut [f32]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = half::f16::from_bits(s).to_f32();
    }
}

/// `tile[r][c] = sum_kk a[r*lda + kk] * panel[kk*NR + c]` for `r < rows`.
pub fn micro_6x16(
    a: &[f32],
    lda: usize,
    rows: usize,
    kb: usize,
    panel: &[f32],
    tile: &mut [f32; MR * NR],
) {
    tile.fill(0.0);
    for r in 0..rows {
        let ar = &a[r * lda..r * lda + kb];
        let t = &mut tile[r * NR..(r + 1) * NR];
        for (kk, &av) in ar.iter().enumerate() {
            let p = &panel[kk * NR..(kk + 1) * NR];
            for c in 0..NR {
                t[c] += av * p[c];
            }
        }
    }
}

pub fn dot_f32(w: &[f32], x: &[f32]) -> f32 {
    w.iter().zip(x).map(|(a, b)| a * b).sum()
}

pub fn dot_f16(w: &[u16], x: &[f32]) -> f32 {
    w.iter()
        .zip(x)
        .map(|(&a, b)| half::f16::from_bits(a).to_f32() * b)
        .sum()
}

pub fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    for (o, &v) in y.iter_mut().zip(x) {
        *o += a * v;
    }
}
