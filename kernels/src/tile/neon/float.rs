//! NEON tiles for F32 and BF16 weights against f32 activations (4-lane FMAs, one row x one
//! token at a time, four accumulators in flight).

use std::arch::aarch64::*;

use crate::tile::Tile;

#[inline(always)]
unsafe fn load4<const BF16: bool>(p: *const u8, i: usize) -> float32x4_t {
    // SAFETY: the caller guarantees 4 elements at offset i.
    unsafe {
        if BF16 {
            let h = vld1_u16(p.cast::<u16>().add(i));
            vreinterpretq_f32_u32(vshll_n_u16(h, 16))
        } else {
            vld1q_f32(p.cast::<f32>().add(i))
        }
    }
}

#[inline(always)]
unsafe fn load1<const BF16: bool>(p: *const u8, i: usize) -> f32 {
    // SAFETY: the caller guarantees element i.
    unsafe {
        if BF16 {
            f32::from_bits(u32::from(std::ptr::read_unaligned(p.cast::<u16>().add(i))) << 16)
        } else {
            std::ptr::read_unaligned(p.cast::<f32>().add(i))
        }
    }
}

#[target_feature(enable = "neon")]
unsafe fn tile<const BF16: bool>(t: &Tile) {
    let k16 = t.k / 16 * 16;
    // SAFETY: rows and tokens below stay inside the tile.
    unsafe {
        for c in 0..t.ntok {
            let x = t.a.add(c * t.a_stride).cast::<f32>();
            for r in 0..t.nrows {
                let w = t.w.add(r * t.w_stride);
                let mut acc = [vdupq_n_f32(0.0); 4];
                let mut i = 0;
                while i < k16 {
                    for (j, a) in acc.iter_mut().enumerate() {
                        *a =
                            vfmaq_f32(*a, load4::<BF16>(w, i + 4 * j), vld1q_f32(x.add(i + 4 * j)));
                    }
                    i += 16;
                }
                let mut s = vaddvq_f32(vaddq_f32(
                    vaddq_f32(acc[0], acc[1]),
                    vaddq_f32(acc[2], acc[3]),
                ));
                for j in k16..t.k {
                    s += load1::<BF16>(w, j) * *x.add(j);
                }
                *t.out.add(c * t.out_stride + r) = s;
            }
        }
    }
}

/// # Safety
/// See [`crate::tile::TileFn`].
pub(crate) unsafe fn tile_f32(t: &Tile) {
    // SAFETY: forwarded.
    unsafe { tile::<false>(t) }
}

/// # Safety
/// See [`crate::tile::TileFn`].
pub(crate) unsafe fn tile_bf16(t: &Tile) {
    // SAFETY: forwarded.
    unsafe { tile::<true>(t) }
}
