//! AVX2 activation quantizers: bit-identical to the scalar `quantize_q8a` (and to GGML's
//! AVX2 `quantize_row_q8_1`) and `quantize_q8k` (whose rounding is a `rintf` call per value
//! on plain x86-64).

use std::arch::x86_64::*;

use crate::quant::{BlockQ8A, BlockQ8K};

pub(crate) fn quantize_q8a(x: &[f32], out: &mut [BlockQ8A]) {
    assert_eq!(x.len(), 32 * out.len(), "quantize_q8a: length mismatch");
    // SAFETY: this table entry is only selected when the CPU has AVX2/FMA/F16C.
    unsafe { quantize_q8a_avx2(x, out) }
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn quantize_q8a_avx2(x: &[f32], out: &mut [BlockQ8A]) {
    let sign = _mm256_set1_ps(-0.0);
    for (v, b) in x.chunks_exact(32).zip(out.iter_mut()) {
        // SAFETY: `v` has 32 floats; `b.qs` has 32 bytes.
        unsafe {
            let p = v.as_ptr();
            let v0 = _mm256_loadu_ps(p);
            let v1 = _mm256_loadu_ps(p.add(8));
            let v2 = _mm256_loadu_ps(p.add(16));
            let v3 = _mm256_loadu_ps(p.add(24));
            let mut m = _mm256_andnot_ps(sign, v0);
            m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v1));
            m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v2));
            m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v3));
            let m4 = _mm_max_ps(_mm256_extractf128_ps(m, 1), _mm256_castps256_ps128(m));
            let m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            let m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
            let amax = _mm_cvtss_f32(m4);
            let d = amax / 127.0;
            let id = if amax != 0.0 { 127.0 / amax } else { 0.0 };
            let mul = _mm256_set1_ps(id);
            const RN: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
            let i0 = _mm256_cvtps_epi32(_mm256_round_ps::<RN>(_mm256_mul_ps(v0, mul)));
            let i1 = _mm256_cvtps_epi32(_mm256_round_ps::<RN>(_mm256_mul_ps(v1, mul)));
            let i2 = _mm256_cvtps_epi32(_mm256_round_ps::<RN>(_mm256_mul_ps(v2, mul)));
            let i3 = _mm256_cvtps_epi32(_mm256_round_ps::<RN>(_mm256_mul_ps(v3, mul)));
            let s = _mm256_add_epi32(_mm256_add_epi32(i0, i1), _mm256_add_epi32(i2, i3));
            let s4 = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
            let s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0b01_00_11_10));
            let s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0b10_11_00_01));
            let sum = _mm_cvtsi128_si32(s4);
            let a = _mm256_packs_epi32(i0, i1);
            let c = _mm256_packs_epi32(i2, i3);
            let q = _mm256_packs_epi16(a, c);
            let q = _mm256_permutevar8x32_epi32(q, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            _mm256_storeu_si256(b.qs.as_mut_ptr().cast(), q);
            b.d = round_f16(d);
            b.s = round_f16(d * sum as f32);
            b.sum = sum;
        }
    }
}

/// Rounds through f16 (round to nearest even) with F16C.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn round_f16(v: f32) -> f32 {
    let h = _mm_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT }>(_mm_set_ss(v));
    _mm_cvtss_f32(_mm_cvtph_ps(h))
}

pub(crate) fn quantize_q8k(x: &[f32], out: &mut [BlockQ8K]) {
    assert_eq!(x.len(), 256 * out.len(), "quantize_q8k: length mismatch");
    // SAFETY: this table entry is only selected when the CPU has AVX2/FMA/F16C.
    unsafe { quantize_q8k_avx2(x, out) }
}

/// Sum of the 8 i32 lanes.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn hsum_i32(s: __m256i) -> i32 {
    let s4 = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    let s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0b01_00_11_10));
    let s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0b10_11_00_01));
    _mm_cvtsi128_si32(s4)
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn quantize_q8k_avx2(x: &[f32], out: &mut [BlockQ8K]) {
    let sign = _mm256_set1_ps(-0.0);
    for (v, b) in x.chunks_exact(256).zip(out.iter_mut()) {
        let p = v.as_ptr();
        // SAFETY (all loads): `v` has 256 floats, read 8 at a time at offsets below 256.
        let load = |i: usize| unsafe { _mm256_loadu_ps(p.add(8 * i)) };
        let mut m = _mm256_setzero_ps();
        for i in 0..32 {
            m = _mm256_max_ps(m, _mm256_andnot_ps(sign, load(i)));
        }
        let m4 = _mm_max_ps(_mm256_extractf128_ps(m, 1), _mm256_castps256_ps128(m));
        let m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        let amax = _mm_cvtss_f32(_mm_max_ss(m4, _mm_movehdup_ps(m4)));
        if amax == 0.0 {
            *b = BlockQ8K::ZERO;
            continue;
        }
        // The first value of that magnitude, with its sign (as the scalar loop keeps it).
        let am = _mm256_set1_ps(amax);
        let mut max = amax;
        for i in 0..32 {
            let hit = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(
                _mm256_andnot_ps(sign, load(i)),
                am,
            ));
            if hit != 0 {
                max = v[8 * i + hit.trailing_zeros() as usize];
                break;
            }
        }
        let iscale = -127.0 / max;
        let mul = _mm256_set1_ps(iscale);
        let top = _mm256_set1_epi32(127);
        const RN: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        for j in 0..8 {
            let q = |i: usize| {
                let r = _mm256_round_ps::<RN>(_mm256_mul_ps(load(4 * j + i), mul));
                _mm256_min_epi32(_mm256_cvtps_epi32(r), top)
            };
            let (i0, i1, i2, i3) = (q(0), q(1), q(2), q(3));
            b.bsums[2 * j] = hsum_i32(_mm256_add_epi32(i0, i1)) as i16;
            b.bsums[2 * j + 1] = hsum_i32(_mm256_add_epi32(i2, i3)) as i16;
            let q = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
            let q = _mm256_permutevar8x32_epi32(q, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            // SAFETY: bytes 32j .. 32j + 32 of the 256 quants.
            unsafe { _mm256_storeu_si256(b.qs.as_mut_ptr().add(32 * j).cast(), q) };
        }
        b.d = 1.0 / iscale;
    }
}
