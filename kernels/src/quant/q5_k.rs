//! Q5_K: super-blocks of 256 5-bit values in 8 sub-blocks of 32, with Q4_K's 6-bit scales
//! and mins under f16 super-scales `d` and `dmin` (176 bytes);
//! `x = d * sc[s] * q - dmin * m[s]`.
//! The low 4 bits are packed like Q4_K (bytes `32*i .. 32*i+32` of `qs`: sub-block `2i` in
//! the low nibbles, `2i+1` in the high nibbles); bit `s` of `qh[l]` is the fifth bit of
//! element `32*s + l`.

use half::f16;

use super::q4_k::KLevels;
use super::{BlockQ4K, QuantBlock, Quantize};
use crate::DType;

/// GGML `block_q5_K`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ5K {
    pub d: f16,
    pub dmin: f16,
    pub scales: [u8; 12],
    pub qh: [u8; 32],
    pub qs: [u8; 128],
}
const _: () = assert!(size_of::<BlockQ5K>() == 176);

impl BlockQ5K {
    /// The 6-bit (scale, min) of sub-block `j` (the same packing as Q4_K).
    #[inline]
    pub fn scale_min(&self, j: usize) -> (u8, u8) {
        let (sc, m) = BlockQ4K::unpack_scales(&self.scales);
        (sc[j], m[j])
    }

    /// The 5-bit value of element `32 * s + l`.
    #[inline]
    pub fn q(&self, s: usize, l: usize) -> u8 {
        let byte = self.qs[32 * (s / 2) + l];
        let nib = if s.is_multiple_of(2) {
            byte & 0x0F
        } else {
            byte >> 4
        };
        nib | (((self.qh[l] >> s) & 1) << 4)
    }
}

// SAFETY: repr(C), integer/f16 fields only, no padding (size asserted above).
unsafe impl QuantBlock for BlockQ5K {
    const DTYPE: DType = DType::Q5_K;
    const LEN: usize = 256;
    fn dequantize(&self, out: &mut [f32]) {
        let (d, dmin) = (self.d.to_f32(), self.dmin.to_f32());
        let (sc, m) = BlockQ4K::unpack_scales(&self.scales);
        for s in 0..8 {
            let (ds, ms) = (d * f32::from(sc[s]), dmin * f32::from(m[s]));
            for l in 0..32 {
                out[32 * s + l] = ds * f32::from(self.q(s, l)) - ms;
            }
        }
    }
}

impl Quantize for BlockQ5K {
    /// GGML `quantize_row_q5_K_ref` (what llama.cpp's quantize writes without an importance
    /// matrix): levels 0..=31 from [`KLevels::search`], the low 4 bits as Q4_K packs them and
    /// the fifth in `qh`.
    fn quantize(x: &[f32]) -> Self {
        let k = KLevels::search(x, 31, -0.5, 15);
        let mut qs = [0u8; 128];
        let mut qh = [0u8; 32];
        for s in 0..8 {
            for l in 0..32 {
                let q = k.l[32 * s + l];
                let nib = q & 0x0F;
                qs[32 * (s / 2) + l] |= if s % 2 == 0 { nib } else { nib << 4 };
                qh[l] |= (q >> 4) << s;
            }
        }
        BlockQ5K {
            d: k.d,
            dmin: k.dmin,
            scales: BlockQ4K::pack_scales(&k.sc, &k.m),
            qh,
            qs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::testutil::Rng;

    #[test]
    fn round_trip_error_is_small_and_bits_sit_where_ggml_puts_them() {
        let x = Rng::new(17).uniform_vec(256, 1.0);
        let b = BlockQ5K::quantize(&x);
        let mut y = [0.0; 256];
        b.dequantize(&mut y);
        let rms = (x.iter().zip(&y).map(|(a, c)| (a - c).powi(2)).sum::<f32>() / 256.0).sqrt();
        assert!(rms < 0.025, "rms {rms}");
        // Element 32*3 + 5: high nibble of qs[32 + 5], bit 3 of qh[5].
        let mut z = b;
        z.qs[37] = 0x90;
        z.qh[5] = 1 << 3;
        assert_eq!(z.q(3, 5), 0x19);
        assert_eq!(z.q(2, 5), 0);
    }
}
