//! Q6_K: super-blocks of 256 6-bit values in 16 sub-blocks of 16 with signed 8-bit scales
//! under one f16 super-scale (210 bytes); `x = d * sc[s] * (q - 32)`.
//! Each half (128 values) takes 64 bytes of `ql` (low 4 bits) and 32 of `qh` (high 2 bits).

use half::f16;

use super::{QuantBlock, Quantize, nearest_int};
use crate::DType;

/// GGML `block_q6_K`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ6K {
    pub ql: [u8; 128],
    pub qh: [u8; 64],
    pub scales: [i8; 16],
    pub d: f16,
}
const _: () = assert!(size_of::<BlockQ6K>() == 210);

impl BlockQ6K {
    /// The unsigned 6-bit value (0..=63) of element `i`.
    #[inline]
    pub fn q(&self, i: usize) -> u8 {
        let (half, r) = (i / 128, i % 128);
        let (quarter, l) = (r / 32, r % 32);
        let ql = self.ql[64 * half + l + 32 * (quarter & 1)];
        let lo = if quarter < 2 { ql & 0x0F } else { ql >> 4 };
        let hi = (self.qh[32 * half + l] >> (2 * quarter)) & 3;
        lo | (hi << 4)
    }

    fn set_q(&mut self, i: usize, q: u8) {
        let (half, r) = (i / 128, i % 128);
        let (quarter, l) = (r / 32, r % 32);
        let ql = &mut self.ql[64 * half + l + 32 * (quarter & 1)];
        *ql |= if quarter < 2 {
            q & 0x0F
        } else {
            (q & 0x0F) << 4
        };
        self.qh[32 * half + l] |= (q >> 4) << (2 * quarter);
    }
}

// SAFETY: repr(C), integer/f16 fields only, no padding (size asserted above).
unsafe impl QuantBlock for BlockQ6K {
    const DTYPE: DType = DType::Q6_K;
    const LEN: usize = 256;
    fn dequantize(&self, out: &mut [f32]) {
        let d = self.d.to_f32();
        for (i, o) in out.iter_mut().enumerate().take(256) {
            let sc = f32::from(self.scales[i / 16]);
            *o = d * sc * (i32::from(self.q(i)) - 32) as f32;
        }
    }
}

impl Quantize for BlockQ6K {
    /// GGML `quantize_row_q6_K_ref` (what llama.cpp's quantize writes without an importance
    /// matrix): per sub-block of 16 the scale [`make_qx_quants`] finds, coded in 8 bits
    /// under `d` with the largest scale at -128.
    fn quantize(x: &[f32]) -> Self {
        let mut l = [0u8; 256];
        let mut scales = [0f32; 16];
        let (mut max_scale, mut max_abs_scale) = (0f32, 0f32);
        for (ib, s) in scales.iter_mut().enumerate() {
            *s = make_qx_quants(32, &x[16 * ib..16 * ib + 16], &mut l[16 * ib..16 * ib + 16]);
            if s.abs() > max_abs_scale {
                max_abs_scale = s.abs();
                max_scale = *s;
            }
        }
        let mut b = BlockQ6K {
            ql: [0; 128],
            qh: [0; 64],
            scales: [0; 16],
            d: f16::ZERO,
        };
        if max_abs_scale < GROUP_MAX_EPS {
            return b;
        }
        let iscale = -128.0 / max_scale;
        b.d = f16::from_f32(1.0 / iscale);
        for (sc, &s) in b.scales.iter_mut().zip(&scales) {
            *sc = nearest_int(iscale * s).min(127) as i8;
        }
        for j in 0..16 {
            let d = b.d.to_f32() * f32::from(b.scales[j]);
            if d == 0.0 {
                continue;
            }
            for i in 0..16 {
                l[16 * j + i] = (nearest_int(x[16 * j + i] / d).clamp(-32, 31) + 32) as u8;
            }
        }
        for (i, &q) in l.iter().enumerate() {
            b.set_q(i, q);
        }
        b
    }
}

/// GGML's `GROUP_MAX_EPS`: groups whose largest magnitude is below this are all zero.
const GROUP_MAX_EPS: f32 = 1e-15;

/// GGML `make_qx_quants` with `rmse_type` 1 and no importance weights: codes `x` as
/// `scale * (L - nmax)` with `L` in `0..2 nmax`, trying 19 scales around the max-magnitude
/// one for the best `x^2`-weighted fit. Writes `L`; returns the scale. Float operations in
/// GGML's order, so the result is bit-identical.
fn make_qx_quants(nmax: i32, x: &[f32], l: &mut [u8]) -> f32 {
    let (mut max, mut amax) = (0f32, 0f32);
    for &v in x {
        if v.abs() > amax {
            amax = v.abs();
            max = v;
        }
    }
    if amax < GROUP_MAX_EPS {
        l[..x.len()].fill(0);
        return 0.0;
    }
    let nmaxf = nmax as f32;
    let code = |iscale: f32, v: f32| nearest_int(iscale * v).clamp(-nmax, nmax - 1);
    let sums = |iscale: f32| {
        let (mut sumlx, mut suml2) = (0f32, 0f32);
        for &v in x {
            let q = code(iscale, v) as f32;
            let w = v * v;
            sumlx += w * v * q;
            suml2 += w * q * q;
        }
        (sumlx, suml2)
    };
    let fill = |iscale: f32, l: &mut [u8]| {
        for (o, &v) in l.iter_mut().zip(x) {
            *o = (nmax + code(iscale, v)) as u8;
        }
    };
    let iscale = -nmaxf / max;
    fill(iscale, l);
    let (sumlx, suml2) = sums(iscale);
    let mut scale = if suml2 != 0.0 { sumlx / suml2 } else { 0.0 };
    let mut best = scale * sumlx;
    for is in (-9..=9).filter(|&is| is != 0) {
        let iscale = -(nmaxf + 0.1 * is as f32) / max;
        let (sumlx, suml2) = sums(iscale);
        if suml2 > 0.0 && sumlx * sumlx > best * suml2 {
            fill(iscale, l);
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::testutil::Rng;

    #[test]
    fn element_layout_matches_ggml_loop() {
        // GGML's dequantize_row_q6_K loop, written out, on random bytes.
        let mut rng = Rng::new(8);
        let mut b = BlockQ6K {
            ql: [0; 128],
            qh: [0; 64],
            scales: [0; 16],
            d: f16::ONE,
        };
        b.ql.iter_mut().for_each(|v| *v = rng.next_u64() as u8);
        b.qh.iter_mut().for_each(|v| *v = rng.next_u64() as u8);
        for n in 0..2 {
            let (ql, qh) = (&b.ql[64 * n..], &b.qh[32 * n..]);
            for l in 0..32 {
                let y = 128 * n + l;
                assert_eq!(b.q(y), (ql[l] & 0xF) | ((qh[l] & 3) << 4));
                assert_eq!(b.q(y + 32), (ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4));
                assert_eq!(b.q(y + 64), (ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4));
                assert_eq!(b.q(y + 96), (ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4));
            }
        }
    }

    #[test]
    fn round_trip_error_is_small() {
        let x = Rng::new(9).uniform_vec(256, 1.0);
        let b = BlockQ6K::quantize(&x);
        let mut y = [0.0; 256];
        b.dequantize(&mut y);
        let rms = (x.iter().zip(&y).map(|(a, c)| (a - c).powi(2)).sum::<f32>() / 256.0).sqrt();
        assert!(rms < 0.03, "rms {rms}");
    }
}
