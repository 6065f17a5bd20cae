//! Element-wise pieces of the transformer: layer norm, GELU, softmax.

/// `x = (x - mean) / sqrt(var + 1e-5) * gamma + beta` over each row of `d` values.
pub fn layer_norm(x: &[f32], d: usize, gamma: &[f32], beta: &[f32], out: &mut [f32]) {
    for (xr, or) in x.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
        let mean = xr.iter().sum::<f32>() / d as f32;
        let var = xr.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d as f32;
        let inv = 1.0 / (var + 1e-5).sqrt();
        for i in 0..d {
            or[i] = (xr[i] - mean) * inv * gamma[i] + beta[i];
        }
    }
}

/// Exact GELU, `x * (1 + erf(x / sqrt 2)) / 2`, in place.
pub fn gelu(x: &mut [f32]) {
    for v in x {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// erf with absolute error below 1.2e-7 (Numerical Recipes' erfc Chebyshev fit).
fn erf(x: f32) -> f32 {
    let z = f64::from(x.abs());
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    let e = (1.0 - r) as f32;
    if x >= 0.0 { e } else { -e }
}

/// Softmax in place over `x` (max-subtracted; the vectorized exp of `pocket-kernels`).
pub fn softmax(x: &mut [f32]) {
    let max = x.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let sum = pocket_kernels::vec::exp_sub(x, max);
    let inv = 1.0 / sum;
    for v in x.iter_mut() {
        *v *= inv;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_and_gelu_known_values() {
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-2.0, -0.995_322_3),
        ] {
            assert!((erf(x) - want).abs() < 2e-7, "erf({x})");
        }
        let mut v = [1.0f32, -1.0, 0.0];
        gelu(&mut v);
        assert!((v[0] - 0.841_344_7).abs() < 1e-6 && (v[1] + 0.158_655_3).abs() < 1e-6);
    }

    #[test]
    fn layer_norm_normalizes() {
        let x = [1.0f32, 2.0, 3.0, 4.0];
        let mut o = [0f32; 4];
        layer_norm(&x, 4, &[1.0; 4], &[0.0; 4], &mut o);
        assert!(o.iter().sum::<f32>().abs() < 1e-6);
        assert!((o[3] - 1.341_640_8).abs() < 1e-4);
    }
}
