//! NEON `sdot` tiles for the interleaved Q4_0x8, Q4_1x8, Q5_0x8, Q5_1x8 and Q8_0x8 layouts (see
//! `crate::repack`): each `sdot` lane is one row's 4-input dot, so 16 `sdot`s cover a
//! 32-column block of 8 rows. Q4_0 / Q5_0 weights become signed bytes (`q - 8`, `q - 16`).

use std::arch::aarch64::*;

use super::{f16_at, sdot};
use crate::quant::BlockQ8A;
use crate::repack::GROUP;
use crate::tile::Tile;

/// Calls `block(group block, activations, acc)` for every group, token and block of `len`
/// columns of the tile (`bytes` per group block, activations in blocks of `A`), then stores
/// each token's 8 accumulated rows.
///
/// # Safety
/// See [`crate::tile::TileFn`].
#[inline(always)]
pub(super) unsafe fn for_each_block<A>(
    t: &Tile,
    len: usize,
    bytes: usize,
    mut block: impl FnMut(*const u8, &A, &mut [float32x4_t; 2]),
) {
    let nb = t.k / len;
    // SAFETY: groups, blocks and tokens below stay inside the tile.
    unsafe {
        for g in 0..t.nrows / GROUP {
            let gp = t.w.add(g * GROUP * t.w_stride);
            for c in 0..t.ntok {
                let a = t.a.add(c * t.a_stride).cast::<A>();
                let mut acc = [vdupq_n_f32(0.0); 2];
                for b in 0..nb {
                    block(gp.add(b * bytes), &*a.add(b), &mut acc);
                }
                let o = t.out.add(c * t.out_stride + g * GROUP);
                vst1q_f32(o, acc[0]);
                vst1q_f32(o.add(4), acc[1]);
            }
        }
    }
}

/// Broadcast of activation bytes `4i .. 4i+4` of a block.
#[inline(always)]
fn bcast(x: &BlockQ8A, i: usize) -> int8x16_t {
    assert!(i < 8);
    // SAFETY: i < 8, inside the 32 quant bytes; NEON is always present on aarch64.
    unsafe {
        let v = std::ptr::read_unaligned(x.qs.as_ptr().cast::<i32>().add(i));
        vreinterpretq_s8_s32(vdupq_n_s32(v))
    }
}

/// `acc += s * d[r] * x.d` for the 8 rows, with the group block's f16 scales `d` at `blk`.
///
/// # Safety
/// `blk` must be valid for 16 bytes.
#[inline(always)]
pub(super) unsafe fn scale(acc: &mut [float32x4_t; 2], s: [int32x4_t; 2], blk: *const u8, xd: f32) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let d: [f32; 8] = std::array::from_fn(|r| f16_at(blk.add(2 * r)) * xd);
        acc[0] = vfmaq_f32(acc[0], vcvtq_f32_s32(s[0]), vld1q_f32(d.as_ptr()));
        acc[1] = vfmaq_f32(acc[1], vcvtq_f32_s32(s[1]), vld1q_f32(d.as_ptr().add(4)));
    }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q8_0x8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile_q8(t) }
}

#[target_feature(enable = "neon,dotprod")]
unsafe fn tile_q8(t: &Tile) {
    // SAFETY: the driver hands out whole 272-byte group blocks.
    unsafe {
        for_each_block(t, 32, 272, |blk, x: &BlockQ8A, acc| {
            let mut s = [vdupq_n_s32(0); 2];
            for u in 0..8 {
                let xb = bcast(x, u);
                s[0] = sdot(s[0], vld1q_s8(blk.add(16 + 32 * u).cast()), xb);
                s[1] = sdot(s[1], vld1q_s8(blk.add(32 + 32 * u).cast()), xb);
            }
            scale(acc, s, blk, x.d);
        })
    }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q4_1x8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile_min::<false>(t) }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q5_1x8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile_min::<true>(t) }
}

/// Fifth bits for chunk `u` of a Q5_0x8 / Q5_1x8 block: bit `u` (low nibbles) and bit
/// `4 + u` (high nibbles) of the `qh` byte at the same position, moved to bit 4.
#[inline(always)]
fn fifth_bits(qh: uint8x16_t, u: usize) -> (uint8x16_t, uint8x16_t) {
    // SAFETY: NEON is always present on aarch64.
    unsafe {
        let bit4 = vdupq_n_u8(0x10);
        let (up, down) = (vdupq_n_s8(4 - u as i8), vdupq_n_s8(-(u as i8)));
        (
            vandq_u8(vshlq_u8(qh, up), bit4),
            vandq_u8(vshlq_u8(qh, down), bit4),
        )
    }
}

/// Q4_1x8 (`FIVE = false`: d, m, quants; 160-byte group blocks) or Q5_1x8 (d, m, reordered
/// fifth bits, quants; 192 bytes). Weights stay unsigned.
#[target_feature(enable = "neon,dotprod")]
unsafe fn tile_min<const FIVE: bool>(t: &Tile) {
    let (bytes, quants) = if FIVE { (192, 64) } else { (160, 32) };
    let m4 = vdupq_n_u8(0x0F);
    // SAFETY: the driver hands out whole group blocks of `bytes`.
    unsafe {
        for_each_block(t, 32, bytes, |blk, x: &BlockQ8A, acc| {
            let qh = [vld1q_u8(blk.add(32)), vld1q_u8(blk.add(48))];
            let mut s = [vdupq_n_s32(0); 2];
            for u in 0..4 {
                let (xl, xh) = (bcast(x, u), bcast(x, 4 + u));
                for (h, sh) in s.iter_mut().enumerate() {
                    let q = vld1q_u8(blk.add(quants + 16 * h + 32 * u));
                    let (mut lo, mut hi) = (vandq_u8(q, m4), vshrq_n_u8(q, 4));
                    if FIVE {
                        let (bl, bh) = fifth_bits(qh[h], u);
                        (lo, hi) = (vorrq_u8(lo, bl), vorrq_u8(hi, bh));
                    }
                    *sh = sdot(*sh, vreinterpretq_s8_u8(lo), xl);
                    *sh = sdot(*sh, vreinterpretq_s8_u8(hi), xh);
                }
            }
            scale(acc, s, blk, x.d);
            let m: [f32; 8] = std::array::from_fn(|r| f16_at(blk.add(16 + 2 * r)) * x.s);
            acc[0] = vaddq_f32(acc[0], vld1q_f32(m.as_ptr()));
            acc[1] = vaddq_f32(acc[1], vld1q_f32(m.as_ptr().add(4)));
        })
    }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q4_0x8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile_signed::<false>(t) }
}

/// # Safety
/// See [`crate::tile::TileFn`]; the CPU must have the dot-product extension.
pub(crate) unsafe fn tile_q5_0x8_dot(t: &Tile) {
    // SAFETY: forwarded from the caller.
    unsafe { tile_signed::<true>(t) }
}

/// Q4_0x8 (`FIVE = false`: d, quants; 144-byte group blocks) or Q5_0x8 (d, reordered fifth
/// bits, quants; 176 bytes; see [`fifth_bits`]).
#[target_feature(enable = "neon,dotprod")]
unsafe fn tile_signed<const FIVE: bool>(t: &Tile) {
    let (bytes, quants) = if FIVE { (176, 48) } else { (144, 16) };
    let m4 = vdupq_n_u8(0x0F);
    let offset = vdupq_n_s8(if FIVE { 16 } else { 8 });
    let w = |v: uint8x16_t| vsubq_s8(vreinterpretq_s8_u8(v), offset);
    // SAFETY: the driver hands out whole group blocks of `bytes`.
    unsafe {
        for_each_block(t, 32, bytes, |blk, x: &BlockQ8A, acc| {
            let qh = [vld1q_u8(blk.add(16)), vld1q_u8(blk.add(32))];
            let mut s = [vdupq_n_s32(0); 2];
            for u in 0..4 {
                let (xl, xh) = (bcast(x, u), bcast(x, 4 + u));
                for (h, sh) in s.iter_mut().enumerate() {
                    let q = vld1q_u8(blk.add(quants + 16 * h + 32 * u));
                    let (mut lo, mut hi) = (vandq_u8(q, m4), vshrq_n_u8(q, 4));
                    if FIVE {
                        let (bl, bh) = fifth_bits(qh[h], u);
                        (lo, hi) = (vorrq_u8(lo, bl), vorrq_u8(hi, bh));
                    }
                    *sh = sdot(*sh, w(lo), xl);
                    *sh = sdot(*sh, w(hi), xh);
                }
            }
            scale(acc, s, blk, x.d);
        })
    }
}
