//! Q4_K: super-blocks of 256 4-bit values in 8 sub-blocks of 32, each with a 6-bit scale and
//! a 6-bit minimum, under f16 super-scales `d` and `dmin` (144 bytes);
//! `x = d * sc[s] * q - dmin * m[s]`.
//! Bytes `32*i .. 32*i+32` of `qs` hold sub-block `2i` in their low nibbles and `2i+1` in
//! their high nibbles.

use half::f16;

use super::{QuantBlock, Quantize, nearest_int};
use crate::DType;

/// GGML `block_q4_K`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ4K {
    pub d: f16,
    pub dmin: f16,
    pub scales: [u8; 12],
    pub qs: [u8; 128],
}
const _: () = assert!(size_of::<BlockQ4K>() == 144);

impl BlockQ4K {
    /// The 6-bit (scale, min) of sub-block `j` (GGML `get_scale_min_k4`).
    #[inline]
    pub fn scale_min(&self, j: usize) -> (u8, u8) {
        scale_min_k4(&self.scales, j)
    }

    /// All 8 (scales, mins) of a 12-byte scale field.
    #[inline]
    pub fn unpack_scales(q: &[u8; 12]) -> ([u8; 8], [u8; 8]) {
        let (mut sc, mut m) = ([0u8; 8], [0u8; 8]);
        for j in 0..8 {
            (sc[j], m[j]) = scale_min_k4(q, j);
        }
        (sc, m)
    }

    /// Packs 8 six-bit scales and mins into the 12-byte layout `scale_min` reads.
    pub fn pack_scales(sc: &[u8; 8], m: &[u8; 8]) -> [u8; 12] {
        let mut q = [0u8; 12];
        for j in 0..4 {
            q[j] = (sc[j] & 63) | ((sc[j + 4] >> 4) << 6);
            q[j + 4] = (m[j] & 63) | ((m[j + 4] >> 4) << 6);
            q[j + 8] = (sc[j + 4] & 0x0F) | ((m[j + 4] & 0x0F) << 4);
        }
        q
    }
}

/// The 6-bit (scale, min) of sub-block `j` of a 12-byte scale field.
#[inline]
fn scale_min_k4(q: &[u8; 12], j: usize) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        (
            (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4),
            (q[j + 4] >> 4) | ((q[j] >> 6) << 4),
        )
    }
}

// SAFETY: repr(C), integer/f16 fields only, no padding (size asserted above).
unsafe impl QuantBlock for BlockQ4K {
    const DTYPE: DType = DType::Q4_K;
    const LEN: usize = 256;
    fn dequantize(&self, out: &mut [f32]) {
        let (d, dmin) = (self.d.to_f32(), self.dmin.to_f32());
        for i in 0..4 {
            let (s0, m0) = self.scale_min(2 * i);
            let (s1, m1) = self.scale_min(2 * i + 1);
            let (d0, n0) = (d * f32::from(s0), dmin * f32::from(m0));
            let (d1, n1) = (d * f32::from(s1), dmin * f32::from(m1));
            for l in 0..32 {
                let b = self.qs[32 * i + l];
                out[64 * i + l] = d0 * f32::from(b & 0x0F) - n0;
                out[64 * i + 32 + l] = d1 * f32::from(b >> 4) - n1;
            }
        }
    }
}

impl Quantize for BlockQ4K {
    /// GGML `quantize_row_q4_K_ref` (what llama.cpp's quantize writes without an importance
    /// matrix): levels 0..=15 from [`KLevels::search`], two per byte.
    fn quantize(x: &[f32]) -> Self {
        let k = KLevels::search(x, 15, -1.0, 20);
        let mut qs = [0u8; 128];
        for (c, q) in qs.chunks_exact_mut(32).enumerate() {
            for (i, b) in q.iter_mut().enumerate() {
                *b = k.l[64 * c + i] | (k.l[64 * c + i + 32] << 4);
            }
        }
        BlockQ4K {
            d: k.d,
            dmin: k.dmin,
            scales: BlockQ4K::pack_scales(&k.sc, &k.m),
            qs,
        }
    }
}

/// A 256-value super-block as GGML's reference Q4_K and Q5_K quantizers code it (they differ
/// only in the number of levels and the search grid): f16 super-scales, 6-bit sub-block
/// scales and mins, and each value's level, `x ≈ d·sc[s]·l - dmin·m[s]`.
pub(super) struct KLevels {
    pub d: f16,
    pub dmin: f16,
    pub sc: [u8; 8],
    pub m: [u8; 8],
    pub l: [u8; 256],
}

impl KLevels {
    /// GGML's search without an importance matrix: per sub-block of 32 a weighted
    /// least-squares scale and minimum ([`make_qkx2_quants`] with levels `0..=nmax` and
    /// `nstep + 1` trial scales from `rmin`), both then coded in 6 bits under the
    /// super-scales, and the values re-levelled with the coded scales. Float operations in
    /// GGML's order, so the result is bit-identical.
    pub fn search(x: &[f32], nmax: i32, rmin: f32, nstep: i32) -> KLevels {
        let mut l = [0u8; 256];
        let mut laux = [0u8; 32];
        let mut weights = [0f32; 32];
        let mut scales = [0f32; 8];
        let mut mins = [0f32; 8];
        let (mut max_scale, mut max_min) = (0f32, 0f32);
        for j in 0..8 {
            let v = &x[32 * j..32 * j + 32];
            let mut sum_x2 = 0f32;
            for &xv in v {
                sum_x2 += xv * xv;
            }
            let av_x = (sum_x2 / 32.0).sqrt();
            for (w, &xv) in weights.iter_mut().zip(v) {
                *w = av_x + xv.abs();
            }
            (scales[j], mins[j]) = make_qkx2_quants(
                nmax,
                v,
                &weights,
                &mut l[32 * j..32 * j + 32],
                &mut laux,
                rmin,
                0.1,
                nstep,
            );
            max_scale = max_scale.max(scales[j]);
            max_min = max_min.max(mins[j]);
        }
        let inv_scale = if max_scale > 0.0 {
            63.0 / max_scale
        } else {
            0.0
        };
        let inv_min = if max_min > 0.0 { 63.0 / max_min } else { 0.0 };
        // As C's `uint8_t` assignment: the int wraps to 8 bits before the clamp.
        let code = |v: f32| (nearest_int(v) as u8).min(63);
        let sc: [u8; 8] = std::array::from_fn(|j| code(inv_scale * scales[j]));
        let m: [u8; 8] = std::array::from_fn(|j| code(inv_min * mins[j]));
        let d = f16::from_f32(max_scale / 63.0);
        let dmin = f16::from_f32(max_min / 63.0);
        for j in 0..8 {
            let step = d.to_f32() * f32::from(sc[j]);
            if step == 0.0 {
                continue;
            }
            let dm = dmin.to_f32() * f32::from(m[j]);
            for i in 0..32 {
                l[32 * j + i] = nearest_int((x[32 * j + i] + dm) / step).clamp(0, nmax) as u8;
            }
        }
        KLevels { d, dmin, sc, m, l }
    }
}

/// GGML `make_qkx2_quants` (squared error, no MAD): codes `x` as `scale * L - min` with
/// `L` in `0..=nmax`, searching `nstep + 1` scales around the min/max one for the smallest
/// `weights`-weighted error (minimum clamped to at most 0). Writes `L`; returns
/// (scale, min). Float operations in GGML's order, so the result is bit-identical.
#[allow(clippy::too_many_arguments)]
pub(crate) fn make_qkx2_quants(
    nmax: i32,
    x: &[f32],
    weights: &[f32],
    l: &mut [u8],
    laux: &mut [u8],
    rmin: f32,
    rdelta: f32,
    nstep: i32,
) -> (f32, f32) {
    let n = x.len();
    let (mut min, mut max) = (x[0], x[0]);
    let mut sum_w = weights[0];
    let mut sum_x = sum_w * x[0];
    for i in 1..n {
        min = if x[i] < min { x[i] } else { min };
        max = if x[i] > max { x[i] } else { max };
        sum_w += weights[i];
        sum_x += weights[i] * x[i];
    }
    if min > 0.0 {
        min = 0.0;
    }
    if max == min {
        l[..n].fill(0);
        return (0.0, -min);
    }
    let nmaxf = nmax as f32;
    let mut iscale = nmaxf / (max - min);
    let mut scale = 1.0 / iscale;
    let mut best_error = 0f32;
    for i in 0..n {
        let q = nearest_int(iscale * (x[i] - min)).clamp(0, nmax);
        l[i] = q as u8;
        let diff = scale * q as f32 + min - x[i];
        best_error += weights[i] * (diff * diff);
    }
    for is in 0..=nstep {
        iscale = (rmin + rdelta * is as f32 + nmaxf) / (max - min);
        let (mut sum_l, mut sum_l2, mut sum_xl) = (0f32, 0f32, 0f32);
        for i in 0..n {
            let q = nearest_int(iscale * (x[i] - min)).clamp(0, nmax);
            laux[i] = q as u8;
            let (w, qf) = (weights[i], q as f32);
            sum_l += w * qf;
            sum_l2 += w * qf * qf;
            sum_xl += w * qf * x[i];
        }
        let det = sum_w * sum_l2 - sum_l * sum_l;
        if det > 0.0 {
            let mut this_scale = (sum_w * sum_xl - sum_x * sum_l) / det;
            let mut this_min = (sum_l2 * sum_x - sum_l * sum_xl) / det;
            if this_min > 0.0 {
                this_min = 0.0;
                this_scale = sum_xl / sum_l2;
            }
            let mut cur_error = 0f32;
            for i in 0..n {
                let diff = this_scale * f32::from(laux[i]) + this_min - x[i];
                cur_error += weights[i] * (diff * diff);
            }
            if cur_error < best_error {
                l[..n].copy_from_slice(&laux[..n]);
                best_error = cur_error;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    (scale, -min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::testutil::Rng;

    #[test]
    fn scales_pack_and_unpack() {
        let mut rng = Rng::new(6);
        let sc: [u8; 8] = std::array::from_fn(|_| (rng.next_u64() % 64) as u8);
        let m: [u8; 8] = std::array::from_fn(|_| (rng.next_u64() % 64) as u8);
        let b = BlockQ4K {
            d: f16::ONE,
            dmin: f16::ONE,
            scales: BlockQ4K::pack_scales(&sc, &m),
            qs: [0; 128],
        };
        for j in 0..8 {
            assert_eq!(b.scale_min(j), (sc[j], m[j]));
        }
    }

    #[test]
    fn round_trip_error_is_small() {
        let x = Rng::new(7).uniform_vec(256, 1.0);
        let b = BlockQ4K::quantize(&x);
        let mut y = [0.0; 256];
        b.dequantize(&mut y);
        let rms = (x.iter().zip(&y).map(|(a, c)| (a - c).powi(2)).sum::<f32>() / 256.0).sqrt();
        assert!(rms < 0.05, "rms {rms}");
    }
}
