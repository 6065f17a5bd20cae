//! NEON activation quantizer: bit-identical to the scalar `quantize_q8a` (round to nearest
//! even with `fcvtns`, scales rounded through f16 by the same `half` conversion).

use std::arch::aarch64::*;

use crate::quant::BlockQ8A;

pub(crate) fn quantize_q8a(x: &[f32], out: &mut [BlockQ8A]) {
    assert_eq!(x.len(), 32 * out.len(), "quantize_q8a: length mismatch");
    // SAFETY: NEON is part of the aarch64 baseline.
    unsafe { quantize_q8a_neon(x, out) }
}

#[target_feature(enable = "neon")]
unsafe fn quantize_q8a_neon(x: &[f32], out: &mut [BlockQ8A]) {
    for (v, b) in x.chunks_exact(32).zip(out.iter_mut()) {
        // SAFETY: `v` has 32 floats, `b.qs` 32 bytes.
        unsafe {
            let p = v.as_ptr();
            let q: [float32x4_t; 8] = std::array::from_fn(|i| vld1q_f32(p.add(4 * i)));
            let mut m = vabsq_f32(q[0]);
            for qi in &q[1..] {
                m = vmaxq_f32(m, vabsq_f32(*qi));
            }
            let amax = vmaxvq_f32(m);
            let d = amax / 127.0;
            let id = if amax != 0.0 { 127.0 / amax } else { 0.0 };
            let idv = vdupq_n_f32(id);
            let i: [int32x4_t; 8] = std::array::from_fn(|j| vcvtnq_s32_f32(vmulq_f32(q[j], idv)));
            let mut s = vaddq_s32(i[0], i[1]);
            for ij in &i[2..] {
                s = vaddq_s32(s, *ij);
            }
            let sum = vaddvq_s32(s);
            let h: [int16x8_t; 4] = std::array::from_fn(|j| {
                vcombine_s16(vqmovn_s32(i[2 * j]), vqmovn_s32(i[2 * j + 1]))
            });
            let b0 = vcombine_s8(vqmovn_s16(h[0]), vqmovn_s16(h[1]));
            let b1 = vcombine_s8(vqmovn_s16(h[2]), vqmovn_s16(h[3]));
            vst1q_s8(b.qs.as_mut_ptr(), b0);
            vst1q_s8(b.qs.as_mut_ptr().add(16), b1);
            b.d = half::f16::from_f32(d).to_f32();
            b.s = half::f16::from_f32(d * sum as f32).to_f32();
            b.sum = sum;
        }
    }
}
