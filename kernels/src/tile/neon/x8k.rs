//! NEON `sdot` tiles for the interleaved Q4_Kx8, Q5_Kx8 and Q6_Kx8 layouts (see `crate::repack`)
//! against [`BlockQ8K`] activations: each `sdot` lane is one row's 4-input dot; a sub-block's
//! sums meet their per-row scales in one multiply-add, Q4_K's / Q5_K's mins the activation
//! sums.
//! Q6_K weights become signed bytes `q - 32`.

use std::arch::aarch64::*;

use super::f16_at;
use super::sdot;
use super::x8::{for_each_block, scale};
use crate::quant::BlockQ8K;
use crate::tile::Tile;

/// Bytes of one Q4_Kx8 group block (8 rows x 256 columns).
const BYTES: usize = 1152;

/// 4 activation bytes at `i` broadcast to every lane.
#[inline(always)]
fn bcast(y: &BlockQ8K, i: usize) -> int8x16_t {
    assert!(i + 4 <= 256);
    // SAFETY: checked above; NEON is always present on aarch64.
    unsafe {
        let v = std::ptr::read_unaligned(y.qs.as_ptr().add(i).cast::<i32>());
        vreinterpretq_s8_s32(vdupq_n_s32(v))
    }
}

/// 8 per-row bytes widened to two vectors of 4 i32 (rows 0..4, 4..8).
#[inline(always)]
fn widen(b: uint8x8_t) -> [int32x4_t; 2] {
    // SAFETY: NEON is always present on aarch64.
    unsafe {
        let v = vmovl_u8(b);
        [
            vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(v))),
            vreinterpretq_s32_u32(vmovl_u16(vget_high_u16(v))),
        ]
    }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q4_kx8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile::<false>(t) }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q5_kx8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile::<true>(t) }
}

/// Q4_Kx8 (`FIVE = false`) or Q5_Kx8 (`FIVE = true`: the `qh` chunks before the quants).
#[target_feature(enable = "neon,dotprod")]
unsafe fn tile<const FIVE: bool>(t: &Tile) {
    let m4 = vdupq_n_u8(0x0F);
    let m2 = vdupq_n_u8(3);
    let m30 = vdupq_n_u8(0x30);
    let bit4 = vdupq_n_u8(0x10);
    let (bytes, quants) = if FIVE { (Q5_BYTES, 384) } else { (BYTES, 128) };
    // SAFETY: the driver hands out whole group blocks.
    unsafe {
        for_each_block(t, 256, bytes, |blk, y: &BlockQ8K, acc| {
            // Scales and mins of the 8 sub-blocks of the 8 rows (row r at byte r).
            let mut sc = [vdup_n_u8(0); 8];
            let mut mn = [vdup_n_u8(0); 8];
            for half in 0..2 {
                let l = vld1q_u8(blk.add(32 + 16 * half));
                let m = vld1q_u8(blk.add(64 + 16 * half));
                let h = vld1q_u8(blk.add(96 + 16 * half));
                let h2 = vshrq_n_u8(h, 2);
                let sc_lo = vorrq_u8(vandq_u8(l, m4), vshlq_n_u8(vandq_u8(h, m2), 4));
                let sc_hi = vorrq_u8(vshrq_n_u8(l, 4), vshlq_n_u8(vandq_u8(h2, m2), 4));
                let mn_lo = vorrq_u8(vandq_u8(m, m4), vandq_u8(h, m30));
                let mn_hi = vorrq_u8(vshrq_n_u8(m, 4), vandq_u8(h2, m30));
                let s = 2 * half;
                (sc[s], sc[s + 1]) = (vget_low_u8(sc_lo), vget_high_u8(sc_lo));
                (sc[4 + s], sc[5 + s]) = (vget_low_u8(sc_hi), vget_high_u8(sc_hi));
                (mn[s], mn[s + 1]) = (vget_low_u8(mn_lo), vget_high_u8(mn_lo));
                (mn[4 + s], mn[5 + s]) = (vget_low_u8(mn_hi), vget_high_u8(mn_hi));
            }
            let mut sumi = [vdupq_n_s32(0); 2];
            let mut summ = [vdupq_n_s32(0); 2];
            for p in 0..4 {
                let mut lo = [vdupq_n_s32(0); 2];
                let mut hi = [vdupq_n_s32(0); 2];
                // Fifth bits of sub-blocks 2p (low nibbles), 2p + 1 (high) moved to bit 4.
                let (up_lo, up_hi) = (vdupq_n_s8(4 - 2 * p as i8), vdupq_n_s8(3 - 2 * p as i8));
                for u in 0..8 {
                    let (xl, xh) = (bcast(y, 64 * p + 4 * u), bcast(y, 64 * p + 32 + 4 * u));
                    for h in 0..2 {
                        let q = vld1q_u8(blk.add(quants + 256 * p + 32 * u + 16 * h));
                        let (mut ql, mut qh) = (vandq_u8(q, m4), vshrq_n_u8(q, 4));
                        if FIVE {
                            let b = vld1q_u8(blk.add(128 + 32 * u + 16 * h));
                            ql = vorrq_u8(ql, vandq_u8(vshlq_u8(b, up_lo), bit4));
                            qh = vorrq_u8(qh, vandq_u8(vshlq_u8(b, up_hi), bit4));
                        }
                        lo[h] = sdot(lo[h], vreinterpretq_s8_u8(ql), xl);
                        hi[h] = sdot(hi[h], vreinterpretq_s8_u8(qh), xh);
                    }
                }
                let (sl, sh) = (widen(sc[2 * p]), widen(sc[2 * p + 1]));
                for h in 0..2 {
                    sumi[h] = vmlaq_s32(vmlaq_s32(sumi[h], lo[h], sl[h]), hi[h], sh[h]);
                }
            }
            for (s, &m) in mn.iter().enumerate() {
                let bsum = i32::from(y.bsums[2 * s]) + i32::from(y.bsums[2 * s + 1]);
                let mv = widen(m);
                for h in 0..2 {
                    summ[h] = vmlaq_n_s32(summ[h], mv[h], bsum);
                }
            }
            scale(acc, sumi, blk, y.d);
            let dmin: [f32; 8] = std::array::from_fn(|r| f16_at(blk.add(16 + 2 * r)) * y.d);
            acc[0] = vfmsq_f32(acc[0], vcvtq_f32_s32(summ[0]), vld1q_f32(dmin.as_ptr()));
            acc[1] = vfmsq_f32(
                acc[1],
                vcvtq_f32_s32(summ[1]),
                vld1q_f32(dmin.as_ptr().add(4)),
            );
        })
    }
}

/// Bytes of one Q5_Kx8 group block.
const Q5_BYTES: usize = 1408;

/// Bytes of one Q6_Kx8 group block.
const Q6_BYTES: usize = 1680;

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q6_kx8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile_q6(t) }
}

#[target_feature(enable = "neon,dotprod")]
unsafe fn tile_q6(t: &Tile) {
    let m4 = vdupq_n_u8(0x0F);
    let m2 = vdupq_n_u8(3);
    let m32 = vdupq_n_s8(32);
    // SAFETY: the driver hands out whole group blocks.
    unsafe {
        for_each_block(t, 256, Q6_BYTES, |blk, y: &BlockQ8K, acc| {
            let mut sumi = [vdupq_n_s32(0); 2];
            for n in 0..2 {
                let half = blk.add(144 + 768 * n);
                for j in 0..4 {
                    // Field j: ql chunk u (j even) or 8 + u (j odd), low (j < 2) or high
                    // nibbles; top bits: qh bits 2j, 2j + 1.
                    let ql = half.add(256 * (j % 2));
                    let down = vdupq_n_s8(-2 * j as i8);
                    for sub in 0..2 {
                        let s = 8 * n + 2 * j + sub;
                        let mut p = [vdupq_n_s32(0); 2];
                        for u in 4 * sub..4 * sub + 4 {
                            let x = bcast(y, 128 * n + 32 * j + 4 * u);
                            for h in 0..2 {
                                let q = vld1q_u8(ql.add(32 * u + 16 * h));
                                let qh = vld1q_u8(half.add(512 + 32 * u + 16 * h));
                                let lo = if j < 2 {
                                    vandq_u8(q, m4)
                                } else {
                                    vshrq_n_u8(q, 4)
                                };
                                let top = vandq_u8(vshlq_u8(qh, down), m2);
                                let w = vsubq_s8(
                                    vreinterpretq_s8_u8(vorrq_u8(lo, vshlq_n_u8(top, 4))),
                                    m32,
                                );
                                p[h] = sdot(p[h], w, x);
                            }
                        }
                        let sc = vmovl_s8(vld1_s8(blk.add(16 + 8 * s).cast()));
                        sumi[0] = vmlaq_s32(sumi[0], p[0], vmovl_s16(vget_low_s16(sc)));
                        sumi[1] = vmlaq_s32(sumi[1], p[1], vmovl_s16(vget_high_s16(sc)));
                    }
                }
            }
            scale(acc, sumi, blk, y.d);
        })
    }
}
