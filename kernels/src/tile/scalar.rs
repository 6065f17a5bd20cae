//! Scalar reference tiles: one row-by-token dot at a time, integer sums per block exactly as
//! GGML's generic `vec_dot_*` functions compute them. Every SIMD tile must match these.

use half::{bf16, f16};

use super::{ActQuant, Tile, TileFn};
use crate::quant::{
    BlockQ4_0, BlockQ4_1, BlockQ4K, BlockQ5_0, BlockQ5_1, BlockQ5K, BlockQ6K, BlockQ8_0, BlockQ8A,
    BlockQ8K, QuantBlock, quantize_q8a, quantize_q8k,
};
use crate::repack::{GROUP, Layout, unpack_row_x8};
use crate::{ActKind, DType};

pub(crate) const ACT_QUANT: ActQuant = ActQuant {
    q8a: quantize_q8a,
    q8k: quantize_q8k,
};

/// Reads block `i` of a row without assuming alignment.
#[inline]
fn block<B: QuantBlock>(row: &[u8], i: usize) -> B {
    let size = size_of::<B>();
    let bytes = &row[i * size..(i + 1) * size];
    // SAFETY: `bytes` has exactly size_of::<B>() bytes; every bit pattern is a valid B.
    unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast::<B>()) }
}

/// Activations of one token, in the form the weight format consumes.
#[derive(Clone, Copy)]
pub(crate) enum ActRow<'a> {
    F32(&'a [f32]),
    Q8A(&'a [BlockQ8A]),
    Q8K(&'a [BlockQ8K]),
}

/// `dot(W row, activations)` for one row of `dtype` (the reference for all tiles).
pub(crate) fn dot_row(dtype: DType, row: &[u8], act: ActRow<'_>) -> f32 {
    match (dtype, act) {
        (DType::F32, ActRow::F32(x)) => row
            .chunks_exact(4)
            .zip(x)
            .map(|(c, &v)| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) * v)
            .sum(),
        (DType::F16, ActRow::F32(x)) => row
            .chunks_exact(2)
            .zip(x)
            .map(|(c, &v)| f16::from_le_bytes([c[0], c[1]]).to_f32() * v)
            .sum(),
        (DType::BF16, ActRow::F32(x)) => row
            .chunks_exact(2)
            .zip(x)
            .map(|(c, &v)| bf16::from_le_bytes([c[0], c[1]]).to_f32() * v)
            .sum(),
        (DType::Q8_0, ActRow::Q8A(a)) => (0..a.len())
            .map(|i| {
                let b: BlockQ8_0 = block(row, i);
                let s: i32 =
                    b.qs.iter()
                        .zip(&a[i].qs)
                        .map(|(&w, &x)| i32::from(w) * i32::from(x))
                        .sum();
                b.d.to_f32() * a[i].d * s as f32
            })
            .sum(),
        (DType::Q4_0, ActRow::Q8A(a)) => (0..a.len())
            .map(|i| {
                let b: BlockQ4_0 = block(row, i);
                let mut s = 0i32;
                for j in 0..16 {
                    s += (i32::from(b.qs[j] & 0x0F) - 8) * i32::from(a[i].qs[j]);
                    s += (i32::from(b.qs[j] >> 4) - 8) * i32::from(a[i].qs[j + 16]);
                }
                b.d.to_f32() * a[i].d * s as f32
            })
            .sum(),
        (DType::Q4_1, ActRow::Q8A(a)) => (0..a.len())
            .map(|i| {
                let b: BlockQ4_1 = block(row, i);
                let mut s = 0i32;
                for j in 0..16 {
                    s += i32::from(b.qs[j] & 0x0F) * i32::from(a[i].qs[j]);
                    s += i32::from(b.qs[j] >> 4) * i32::from(a[i].qs[j + 16]);
                }
                b.d.to_f32() * a[i].d * s as f32 + b.m.to_f32() * a[i].s
            })
            .sum(),
        (DType::Q5_0, ActRow::Q8A(a)) => (0..a.len())
            .map(|i| {
                let b: BlockQ5_0 = block(row, i);
                let qh = u32::from_le_bytes(b.qh);
                let mut s = 0i32;
                for j in 0..16 {
                    let lo = i32::from(b.qs[j] & 0x0F) | (((qh >> j) & 1) << 4) as i32;
                    let hi = i32::from(b.qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4) as i32;
                    s += (lo - 16) * i32::from(a[i].qs[j]);
                    s += (hi - 16) * i32::from(a[i].qs[j + 16]);
                }
                b.d.to_f32() * a[i].d * s as f32
            })
            .sum(),
        (DType::Q5_1, ActRow::Q8A(a)) => (0..a.len())
            .map(|i| {
                let b: BlockQ5_1 = block(row, i);
                let s: i32 = (0..32)
                    .map(|j| i32::from(b.q(j)) * i32::from(a[i].qs[j]))
                    .sum();
                b.d.to_f32() * a[i].d * s as f32 + b.m.to_f32() * a[i].s
            })
            .sum(),
        (DType::Q4_K, ActRow::Q8K(a)) => (0..a.len())
            .map(|i| {
                let b: BlockQ4K = block(row, i);
                kquant_dot(&a[i], b.d, b.dmin, &b.scales, |s, l| {
                    let byte = b.qs[32 * (s / 2) + l];
                    if s % 2 == 0 { byte & 0x0F } else { byte >> 4 }
                })
            })
            .sum(),
        (DType::Q5_K, ActRow::Q8K(a)) => (0..a.len())
            .map(|i| {
                let b: BlockQ5K = block(row, i);
                kquant_dot(&a[i], b.d, b.dmin, &b.scales, |s, l| b.q(s, l))
            })
            .sum(),
        (DType::Q6_K, ActRow::Q8K(a)) => (0..a.len())
            .map(|i| {
                let b: BlockQ6K = block(row, i);
                let y = &a[i];
                let mut sum = 0i32;
                for s in 0..16 {
                    let mut dot = 0i32;
                    for l in 0..16 {
                        let e = 16 * s + l;
                        dot += (i32::from(b.q(e)) - 32) * i32::from(y.qs[e]);
                    }
                    sum += i32::from(b.scales[s]) * dot;
                }
                y.d * b.d.to_f32() * sum as f32
            })
            .sum(),
        _ => unreachable!("activation kind does not match {dtype:?}"),
    }
}

/// One super-block of a K-quant with 6-bit scales and mins (Q4_K, Q5_K) against Q8_K
/// activations; `q(s, l)` is the level of element `32 * s + l`.
fn kquant_dot(
    y: &BlockQ8K,
    d: f16,
    dmin: f16,
    scales: &[u8; 12],
    q: impl Fn(usize, usize) -> u8,
) -> f32 {
    let (sc, m) = BlockQ4K::unpack_scales(scales);
    let (mut sum_q, mut sum_m) = (0i32, 0i32);
    for s in 0..8 {
        let dot: i32 = (0..32)
            .map(|l| i32::from(q(s, l)) * i32::from(y.qs[32 * s + l]))
            .sum();
        sum_q += i32::from(sc[s]) * dot;
        sum_m += i32::from(m[s]) * (i32::from(y.bsums[2 * s]) + i32::from(y.bsums[2 * s + 1]));
    }
    y.d * d.to_f32() * sum_q as f32 - y.d * dmin.to_f32() * sum_m as f32
}

/// The scalar tile (one for all formats: it reads the format from the tile).
pub(crate) const fn tile_fn(_dtype: DType, layout: Layout) -> TileFn {
    match layout {
        Layout::Rows => tile,
        Layout::X8 => tile_x8,
    }
}

/// # Safety
/// See [`TileFn`]. Interleaved layouts: rows are rebuilt block by block, then dotted exactly
/// like row-major ones.
unsafe fn tile_x8(t: &Tile) {
    let dtype = t.dtype;
    let row_bytes = dtype.row_bytes(t.k).unwrap_or(0);
    let mut row = vec![0u8; row_bytes];
    for g in 0..t.nrows / GROUP {
        // SAFETY: the caller guarantees whole groups inside the matrix.
        let group = unsafe {
            std::slice::from_raw_parts(t.w.add(g * GROUP * t.w_stride), GROUP * row_bytes)
        };
        for r in 0..GROUP {
            unpack_row_x8(dtype, t.k, group, r, &mut row);
            for tok in 0..t.ntok {
                let act = unsafe { act_row(t, tok) };
                unsafe {
                    *t.out.add(tok * t.out_stride + g * GROUP + r) = dot_row(dtype, &row, act)
                };
            }
        }
    }
}

/// The activations of token `tok` of the tile.
///
/// # Safety
/// The tile's activation pointer must cover token `tok`.
unsafe fn act_row(t: &Tile, tok: usize) -> ActRow<'_> {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let a = t.a.add(tok * t.a_stride);
        match t.dtype.act_kind() {
            ActKind::F32 => ActRow::F32(std::slice::from_raw_parts(a.cast::<f32>(), t.k)),
            ActKind::Q8A => ActRow::Q8A(std::slice::from_raw_parts(a.cast::<BlockQ8A>(), t.k / 32)),
            ActKind::Q8K => {
                ActRow::Q8K(std::slice::from_raw_parts(a.cast::<BlockQ8K>(), t.k / 256))
            }
        }
    }
}

/// # Safety
/// See [`TileFn`].
unsafe fn tile(t: &Tile) {
    let dtype = t.dtype;
    let row_bytes = dtype.row_bytes(t.k).unwrap_or(0);
    for tok in 0..t.ntok {
        // SAFETY (all blocks below): the caller guarantees the tile's extents and formats.
        let act = unsafe { act_row(t, tok) };
        for r in 0..t.nrows {
            let row = unsafe { std::slice::from_raw_parts(t.w.add(r * t.w_stride), row_bytes) };
            let v = dot_row(dtype, row, act);
            unsafe { *t.out.add(tok * t.out_stride + r) = v };
        }
    }
}
