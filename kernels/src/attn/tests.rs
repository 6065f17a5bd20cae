//! Parity of the SIMD attention with the reference, and of the reference with f64 math.

use half::f16;

use super::*;
use crate::quant::testutil::Rng;

fn case(
    rng: &mut Rng,
    g: usize,
    hd: usize,
    len: usize,
    stride: usize,
) -> (Vec<f32>, Vec<f16>, Vec<f16>) {
    let q = rng.uniform_vec(g * hd, 1.0);
    let kt: Vec<f16> = rng
        .uniform_vec(hd * stride, 2.0)
        .into_iter()
        .map(f16::from_f32)
        .collect();
    let v: Vec<f16> = rng
        .uniform_vec(len * hd, 1.0)
        .into_iter()
        .map(f16::from_f32)
        .collect();
    (q, kt, v)
}

#[test]
fn simd_attention_matches_reference_and_f64() {
    let mut rng = Rng::new(21);
    for (g, hd, len) in [
        (1, 8, 1),
        (3, 64, 7),
        (7, 64, 40),
        (2, 32, 129),
        (8, 16, 64),
        (9, 64, 20),
        (4, 12, 9),
    ] {
        let stride = len + 5;
        let (q, kt, v) = case(&mut rng, g, hd, len, stride);
        let a = GroupAttention {
            q: &q,
            heads: g,
            head_dim: hd,
            keys_t: &kt,
            stride,
            values: &v,
            len,
            scale: 0.125,
        };
        // f64 ground truth.
        let mut want = vec![0f64; g * hd];
        for j in 0..g {
            let s: Vec<f64> = (0..len)
                .map(|p| {
                    (0..hd)
                        .map(|d| f64::from(q[j * hd + d]) * f64::from(kt[d * stride + p].to_f32()))
                        .sum::<f64>()
                        * 0.125
                })
                .collect();
            let m = s.iter().copied().fold(f64::MIN, f64::max);
            let e: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
            let z: f64 = e.iter().sum();
            for d in 0..hd {
                want[j * hd + d] = (0..len)
                    .map(|p| e[p] / z * f64::from(v[p * hd + d].to_f32()))
                    .sum();
            }
        }
        for isa in Isa::under_test() {
            let mut scores = vec![f32::NAN; g * len];
            let mut out = vec![f32::NAN; g * hd];
            a.run_with(isa, &mut scores, &mut out).expect("run");
            for (i, (o, w)) in out.iter().zip(&want).enumerate() {
                assert!(
                    (f64::from(*o) - w).abs() < 1e-4,
                    "{isa:?} g={g} hd={hd} len={len} i={i}: {o} vs {w}"
                );
            }
        }
    }
}

#[test]
fn bad_shapes_are_errors() {
    let q = vec![0.0; 64];
    let kt = vec![f16::ZERO; 64 * 10];
    let v = vec![f16::ZERO; 10 * 64];
    let a = GroupAttention {
        q: &q,
        heads: 1,
        head_dim: 64,
        keys_t: &kt,
        stride: 10,
        values: &v,
        len: 11,
        scale: 1.0,
    };
    assert!(a.run(&mut [0.0; 11], &mut [0.0; 64]).is_err());
    let a = GroupAttention { len: 10, ..a };
    assert!(a.run(&mut [0.0; 10], &mut [0.0; 64]).is_ok());
    assert!(a.run(&mut [0.0; 9], &mut [0.0; 64]).is_err());
}
