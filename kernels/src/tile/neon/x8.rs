//! NEON `sdot` tiles for the interleaved Q4_1x8 and Q8_0x8 layouts (see `crate::repack`): each `sdot`
//! lane is one row's 4-input dot, so 16 `sdot`s cover a 32-column block of 8 rows.

use std::arch::aarch64::*;

use super::{f16_at, sdot};
use crate::quant::BlockQ8A;
use crate::repack::GROUP;
use crate::tile::Tile;

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q8_0x8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile_q8(t) }
}

#[target_feature(enable = "neon,dotprod")]
unsafe fn tile_q8(t: &Tile) {
    let nb = t.k / 32;
    // SAFETY: groups, blocks and tokens below stay inside the tile.
    unsafe {
        for g in 0..t.nrows / GROUP {
            let gp = t.w.add(g * GROUP * t.w_stride);
            for c in 0..t.ntok {
                let a = t.a.add(c * t.a_stride).cast::<BlockQ8A>();
                let mut acc0 = vdupq_n_f32(0.0);
                let mut acc1 = vdupq_n_f32(0.0);
                for b in 0..nb {
                    let blk = gp.add(b * 272);
                    let x = &*a.add(b);
                    let xp = x.qs.as_ptr().cast::<i32>();
                    let mut s0 = vdupq_n_s32(0);
                    let mut s1 = vdupq_n_s32(0);
                    for u in 0..8 {
                        let xb =
                            vreinterpretq_s8_s32(vdupq_n_s32(std::ptr::read_unaligned(xp.add(u))));
                        s0 = sdot(s0, vld1q_s8(blk.add(16 + 32 * u).cast()), xb);
                        s1 = sdot(s1, vld1q_s8(blk.add(32 + 32 * u).cast()), xb);
                    }
                    let d: [f32; 8] = std::array::from_fn(|r| f16_at(blk.add(2 * r)) * x.d);
                    acc0 = vfmaq_f32(acc0, vcvtq_f32_s32(s0), vld1q_f32(d.as_ptr()));
                    acc1 = vfmaq_f32(acc1, vcvtq_f32_s32(s1), vld1q_f32(d.as_ptr().add(4)));
                }
                let o = t.out.add(c * t.out_stride + g * GROUP);
                vst1q_f32(o, acc0);
                vst1q_f32(o.add(4), acc1);
            }
        }
    }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q4_1x8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile(t) }
}

#[target_feature(enable = "neon,dotprod")]
unsafe fn tile(t: &Tile) {
    let nb = t.k / 32;
    let m4 = vdupq_n_u8(0x0F);
    // SAFETY: groups, blocks and tokens below stay inside the tile.
    unsafe {
        for g in 0..t.nrows / GROUP {
            let gp = t.w.add(g * GROUP * t.w_stride);
            for c in 0..t.ntok {
                let a = t.a.add(c * t.a_stride).cast::<BlockQ8A>();
                let mut acc0 = vdupq_n_f32(0.0);
                let mut acc1 = vdupq_n_f32(0.0);
                for b in 0..nb {
                    let blk = gp.add(b * 160);
                    let x = &*a.add(b);
                    let xp = x.qs.as_ptr().cast::<i32>();
                    let mut s0 = vdupq_n_s32(0);
                    let mut s1 = vdupq_n_s32(0);
                    for u in 0..4 {
                        let q0 = vld1q_u8(blk.add(32 + 32 * u));
                        let q1 = vld1q_u8(blk.add(48 + 32 * u));
                        let xl =
                            vreinterpretq_s8_s32(vdupq_n_s32(std::ptr::read_unaligned(xp.add(u))));
                        let xh = vreinterpretq_s8_s32(vdupq_n_s32(std::ptr::read_unaligned(
                            xp.add(4 + u),
                        )));
                        s0 = sdot(s0, vreinterpretq_s8_u8(vandq_u8(q0, m4)), xl);
                        s1 = sdot(s1, vreinterpretq_s8_u8(vandq_u8(q1, m4)), xl);
                        s0 = sdot(s0, vreinterpretq_s8_u8(vshrq_n_u8(q0, 4)), xh);
                        s1 = sdot(s1, vreinterpretq_s8_u8(vshrq_n_u8(q1, 4)), xh);
                    }
                    let d: [f32; 8] = std::array::from_fn(|r| f16_at(blk.add(2 * r)) * x.d);
                    let m: [f32; 8] = std::array::from_fn(|r| f16_at(blk.add(16 + 2 * r)) * x.s);
                    acc0 = vfmaq_f32(acc0, vcvtq_f32_s32(s0), vld1q_f32(d.as_ptr()));
                    acc1 = vfmaq_f32(acc1, vcvtq_f32_s32(s1), vld1q_f32(d.as_ptr().add(4)));
                    acc0 = vaddq_f32(acc0, vld1q_f32(m.as_ptr()));
                    acc1 = vaddq_f32(acc1, vld1q_f32(m.as_ptr().add(4)));
                }
                let o = t.out.add(c * t.out_stride + g * GROUP);
                vst1q_f32(o, acc0);
                vst1q_f32(o.add(4), acc1);
            }
        }
    }
}
