//! NEON tiles for the 32-element formats against 8-bit activation blocks: `sdot` when the CPU
//! has it, widening multiplies (`smull` + pairwise add) otherwise; one row x one token at a
//! time, two blocks in flight.

use std::arch::aarch64::*;

use super::{f16_at, sdot};
use crate::quant::BlockQ8A;
use crate::tile::Tile;

const Q4_0: u8 = 0;
const Q4_1: u8 = 1;
const Q5_0: u8 = 2;
const Q8_0: u8 = 3;

const fn block_bytes(f: u8) -> usize {
    match f {
        Q4_0 => 18,
        Q4_1 => 20,
        Q5_0 => 22,
        _ => 34,
    }
}

/// The block's 32 values as signed bytes (elements 0..16, 16..32).
#[inline(always)]
unsafe fn values<const F: u8>(p: *const u8) -> (int8x16_t, int8x16_t) {
    // SAFETY: the caller guarantees a whole block at `p`.
    unsafe {
        let m4 = vdupq_n_u8(0x0F);
        match F {
            Q4_0 | Q4_1 => {
                let q = vld1q_u8(p.add(if F == Q4_0 { 2 } else { 4 }));
                let lo = vreinterpretq_s8_u8(vandq_u8(q, m4));
                let hi = vreinterpretq_s8_u8(vshrq_n_u8(q, 4));
                if F == Q4_0 {
                    let e = vdupq_n_s8(8);
                    (vsubq_s8(lo, e), vsubq_s8(hi, e))
                } else {
                    (lo, hi)
                }
            }
            Q5_0 => {
                let qh = std::ptr::read_unaligned(p.add(2).cast::<u32>());
                let q = vld1q_u8(p.add(6));
                let bits = |start: u32| -> uint8x16_t {
                    let v: [u8; 16] =
                        std::array::from_fn(|j| (((qh >> (start + j as u32)) & 1) << 4) as u8);
                    vld1q_u8(v.as_ptr())
                };
                let lo = vorrq_u8(vandq_u8(q, m4), bits(0));
                let hi = vorrq_u8(vshrq_n_u8(q, 4), bits(16));
                let e = vdupq_n_s8(16);
                (
                    vsubq_s8(vreinterpretq_s8_u8(lo), e),
                    vsubq_s8(vreinterpretq_s8_u8(hi), e),
                )
            }
            _ => (vld1q_s8(p.add(2).cast()), vld1q_s8(p.add(18).cast())),
        }
    }
}

/// Integer dot of 32 signed bytes, widening multiplies.
#[inline(always)]
unsafe fn idot(w: (int8x16_t, int8x16_t), x: (int8x16_t, int8x16_t)) -> i32 {
    // SAFETY: register-only NEON operations.
    unsafe {
        let p0 = vmull_s8(vget_low_s8(w.0), vget_low_s8(x.0));
        let p1 = vmull_high_s8(w.0, x.0);
        let p2 = vmull_s8(vget_low_s8(w.1), vget_low_s8(x.1));
        let p3 = vmull_high_s8(w.1, x.1);
        let s = vpaddlq_s16(p0);
        let s = vpadalq_s16(s, p1);
        let s = vpadalq_s16(s, p2);
        let s = vpadalq_s16(s, p3);
        vaddvq_s32(s)
    }
}

/// Integer dot of 32 signed bytes with `sdot`.
#[inline(always)]
unsafe fn idot_sdot(w: (int8x16_t, int8x16_t), x: (int8x16_t, int8x16_t)) -> i32 {
    // SAFETY: only called from functions compiled with `dotprod`.
    unsafe {
        let s = sdot(vdupq_n_s32(0), w.0, x.0);
        let s = sdot(s, w.1, x.1);
        vaddvq_s32(s)
    }
}

#[inline(always)]
unsafe fn tile<const F: u8, const DOT: bool>(t: &Tile) {
    let nb = t.k / 32;
    // SAFETY: rows and tokens below stay inside the tile.
    unsafe {
        for c in 0..t.ntok {
            let a = t.a.add(c * t.a_stride).cast::<BlockQ8A>();
            for r in 0..t.nrows {
                let w = t.w.add(r * t.w_stride);
                let mut acc = 0f32;
                for b in 0..nb {
                    let p = w.add(b * block_bytes(F));
                    let x = &*a.add(b);
                    let xv = (vld1q_s8(x.qs.as_ptr()), vld1q_s8(x.qs.as_ptr().add(16)));
                    let wv = values::<F>(p);
                    let i = if DOT { idot_sdot(wv, xv) } else { idot(wv, xv) };
                    acc += f16_at(p) * x.d * i as f32;
                    if F == Q4_1 {
                        acc += f16_at(p.add(2)) * x.s;
                    }
                }
                *t.out.add(c * t.out_stride + r) = acc;
            }
        }
    }
}

macro_rules! entries {
    ($plain:ident, $dot:ident, $f:expr) => {
        /// # Safety
        /// See [`crate::tile::TileFn`].
        pub(crate) unsafe fn $plain(t: &Tile) {
            // SAFETY: forwarded from the caller.
            unsafe { plain::<{ $f }>(t) }
        }
        /// # Safety
        /// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
        pub(crate) unsafe fn $dot(t: &Tile) {
            // SAFETY: forwarded from the caller.
            unsafe { with_dot::<{ $f }>(t) }
        }
    };
}

#[target_feature(enable = "neon")]
unsafe fn plain<const F: u8>(t: &Tile) {
    // SAFETY: forwarded.
    unsafe { tile::<F, false>(t) }
}

#[target_feature(enable = "neon,dotprod")]
unsafe fn with_dot<const F: u8>(t: &Tile) {
    // SAFETY: forwarded.
    unsafe { tile::<F, true>(t) }
}

entries!(tile_q4_0, tile_q4_0_dot, Q4_0);
entries!(tile_q4_1, tile_q4_1_dot, Q4_1);
entries!(tile_q5_0, tile_q5_0_dot, Q5_0);
entries!(tile_q8_0, tile_q8_0_dot, Q8_0);
