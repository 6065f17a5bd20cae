//! Q4_K: super-blocks of 256 4-bit values in 8 sub-blocks of 32, each with a 6-bit scale and
//! a 6-bit minimum, under f16 super-scales `d` and `dmin` (144 bytes);
//! `x = d * sc[s] * q - dmin * m[s]`.
//! Bytes `32*i .. 32*i+32` of `qs` hold sub-block `2i` in their low nibbles and `2i+1` in
//! their high nibbles.

use half::f16;

use super::{QuantBlock, Quantize, round_even};
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
    /// A simple min/max quantizer (not GGML's iterative search): per sub-block
    /// `scale = (max - min) / 15` with `min` clamped to at most 0, both coded in 6 bits.
    fn quantize(x: &[f32]) -> Self {
        let k = KScales::min_max(x, 15);
        let mut qs = [0u8; 128];
        for s in 0..8 {
            for l in 0..32 {
                let q = k.level(s, x[32 * s + l]);
                qs[32 * (s / 2) + l] |= if s % 2 == 0 { q } else { q << 4 };
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

/// The super-scales and 6-bit sub-block scales and mins of a 256-value K-quant super-block
/// (Q4_K, Q5_K), chosen from each sub-block's minimum and maximum.
pub(super) struct KScales {
    pub d: f16,
    pub dmin: f16,
    pub sc: [u8; 8],
    pub m: [u8; 8],
    max_q: i32,
}

impl KScales {
    /// Per sub-block `scale = (max - min) / max_q` with `min` clamped to at most 0.
    pub fn min_max(x: &[f32], max_q: i32) -> KScales {
        let mut scales = [0f32; 8];
        let mut mins = [0f32; 8];
        for s in 0..8 {
            let v = &x[32 * s..32 * s + 32];
            let lo = v.iter().copied().fold(0.0f32, f32::min);
            let hi = v.iter().copied().fold(lo, f32::max);
            scales[s] = (hi - lo) / max_q as f32;
            mins[s] = -lo;
        }
        let d = f16::from_f32(scales.iter().copied().fold(0.0, f32::max) / 63.0);
        let dmin = f16::from_f32(mins.iter().copied().fold(0.0, f32::max) / 63.0);
        let code = |v: f32, unit: f32| {
            if unit > 0.0 {
                round_even(v / unit).clamp(0, 63) as u8
            } else {
                0
            }
        };
        KScales {
            d,
            dmin,
            sc: std::array::from_fn(|s| code(scales[s], d.to_f32())),
            m: std::array::from_fn(|s| code(mins[s], dmin.to_f32())),
            max_q,
        }
    }

    /// The level (0..=max_q) of value `v` of sub-block `s`.
    pub fn level(&self, s: usize, v: f32) -> u8 {
        let step = self.d.to_f32() * f32::from(self.sc[s]);
        let off = self.dmin.to_f32() * f32::from(self.m[s]);
        if step > 0.0 {
            round_even((v + off) / step).clamp(0, self.max_q) as u8
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::testutil::Rng;

    #[test]
    fn scales_pack_and_unpack() {
        let mut rng = Rng(6);
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
        let x = Rng(7).vec(256, 1.0);
        let b = BlockQ4K::quantize(&x);
        let mut y = [0.0; 256];
        b.dequantize(&mut y);
        let rms = (x.iter().zip(&y).map(|(a, c)| (a - c).powi(2)).sum::<f32>() / 256.0).sqrt();
        assert!(rms < 0.05, "rms {rms}");
    }
}
