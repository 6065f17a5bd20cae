//! Parity of the SIMD vector kernels with their scalar twins, and of `exp` with libm.

use half::f16;

use super::*;
use crate::quant::testutil::Rng;

#[test]
fn exp_is_accurate_over_the_whole_range() {
    let mut x = -100.0f32;
    while x < 100.0 {
        let (got, want) = (scalar::exp(x), x.exp());
        if x < scalar::EXP_LO {
            // Subnormal results are flushed to zero.
            assert_eq!(got, 0.0, "exp({x})");
        } else if want.is_infinite() {
            assert!(got.is_infinite() || got > 3.0e38, "exp({x}) = {got}");
        } else {
            assert!(
                ((got - want) / want).abs() < 1e-6,
                "exp({x}) = {got}, libm {want}"
            );
        }
        x += 0.0137;
    }
    assert!(scalar::exp(f32::NAN).is_nan());
    assert_eq!(scalar::exp(f32::NEG_INFINITY), 0.0);
}

#[test]
fn simd_vector_kernels_match_scalar() {
    let mut rng = Rng::new(9);
    let s = ops_for(Isa::Scalar);
    for isa in Isa::under_test() {
        let v = ops_for(isa);
        for n in [0usize, 1, 7, 8, 15, 16, 64, 67, 200] {
            let a: Vec<f16> = rng
                .uniform_vec(n, 3.0)
                .into_iter()
                .map(f16::from_f32)
                .collect();
            let b = rng.uniform_vec(n, 3.0);
            let (x, y) = ((s.dot_f16)(&a, &b), (v.dot_f16)(&a, &b));
            let mag: f32 = a.iter().zip(&b).map(|(p, q)| (p.to_f32() * q).abs()).sum();
            assert!(
                (x - y).abs() <= 1e-5 * mag + 1e-6,
                "{isa:?} dot n={n}: {x} vs {y}"
            );

            let (mut y1, mut y2) = (b.clone(), b.clone());
            (s.axpy_f16)(&mut y1, 0.7, &a);
            (v.axpy_f16)(&mut y2, 0.7, &a);
            for (p, q) in y1.iter().zip(&y2) {
                assert!(
                    (p - q).abs() <= 1e-5 * p.abs().max(1.0),
                    "{isa:?} axpy n={n}"
                );
            }

            let g = rng.uniform_vec(n, 12.0);
            let (mut g1, mut g2) = (g.clone(), g.clone());
            (s.silu_mul)(&mut g1, &b);
            (v.silu_mul)(&mut g2, &b);
            for (p, q) in g1.iter().zip(&g2) {
                assert!(
                    (p - q).abs() <= 1e-5 * p.abs().max(1e-3),
                    "{isa:?} silu n={n}: {p} vs {q}"
                );
            }

            let mut e = rng.uniform_vec(n, 40.0);
            e.iter_mut().enumerate().for_each(|(i, v)| {
                if i % 13 == 5 {
                    *v = -200.0
                }
            });
            let max = e.iter().copied().fold(f32::MIN, f32::max);
            let (mut e1, mut e2) = (e.clone(), e.clone());
            let (s1, s2) = ((s.exp_sub)(&mut e1, max), (v.exp_sub)(&mut e2, max));
            assert!(
                (s1 - s2).abs() <= 1e-5 * s1.max(1e-30),
                "{isa:?} exp_sub n={n}: {s1} vs {s2}"
            );
            for (p, q) in e1.iter().zip(&e2) {
                assert!(
                    (p - q).abs() <= 2e-7 * p.abs() + 1e-38,
                    "{isa:?} exp n={n}: {p} vs {q}"
                );
            }
        }
    }
}

#[test]
fn silu_matches_its_definition() {
    let g = [-30.0f32, -2.0, -0.5, 0.0, 0.5, 2.0, 30.0];
    let up = [1.0f32; 7];
    let mut out = g;
    silu_mul(&mut out, &up);
    for (o, x) in out.iter().zip(&g) {
        let want = x / (1.0 + (-x).exp());
        assert!(
            (o - want).abs() <= 1e-6 * want.abs().max(1e-3),
            "silu({x}) = {o}, want {want}"
        );
    }
}
