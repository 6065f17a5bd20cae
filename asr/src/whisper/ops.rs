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

/// Exact GELU, `x * (1 + erf(x / sqrt 2)) / 2`, in place. Works in blocks so the arithmetic
/// vectorizes and the exponential is `pocket-kernels`' vectorized one.
pub fn gelu(x: &mut [f32]) {
    const BLOCK: usize = 64;
    let mut t = [0f32; BLOCK];
    let mut e = [0f32; BLOCK];
    for xs in x.chunks_mut(BLOCK) {
        let n = xs.len();
        for i in 0..n {
            let z = xs[i].abs() * std::f32::consts::FRAC_1_SQRT_2;
            t[i] = 1.0 / (1.0 + 0.5 * z);
            e[i] = erfc_exponent(z, t[i]);
        }
        pocket_kernels::vec::exp_sub(&mut e[..n], 0.0);
        for i in 0..n {
            let erf_abs = 1.0 - t[i] * e[i];
            let erf = if xs[i] >= 0.0 { erf_abs } else { -erf_abs };
            xs[i] = 0.5 * xs[i] * (1.0 + erf);
        }
    }
}

/// The exponent of Numerical Recipes' erfc Chebyshev fit, `erfc(z) = t * exp(this)` for
/// `z >= 0`, `t = 1 / (1 + z / 2)` (absolute error of erf below 1.2e-7 in exact arithmetic,
/// about 1e-6 in f32); clamped where the exponential underflows anyway.
#[inline]
fn erfc_exponent(z: f32, t: f32) -> f32 {
    let p = -1.265_512_2
        + t * (1.000_023_7
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_204
                                + t * (1.488_515_9 + t * (-0.822_152_2 + t * 0.170_872_77))))))));
    (-z * z + p).max(-87.0)
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
    fn gelu_matches_the_exact_erf_form() {
        // GELU(x) = x * Phi(x); reference values of the standard normal CDF.
        let cases = [
            (0.0f32, 0.0f32),
            (1.0, 0.841_344_7),
            (-1.0, -0.158_655_3),
            (0.5, 0.345_731_4),
            (-2.0, -0.045_500_26),
            (3.0, 2.995_950_4),
            (-12.0, 0.0),
            (40.0, 40.0),
        ];
        // More values than one block, so the tail block is exercised too.
        let mut v: Vec<f32> = (0..70).map(|i| cases[i % cases.len()].0).collect();
        gelu(&mut v);
        for (i, g) in v.iter().enumerate() {
            let (x, want) = cases[i % cases.len()];
            assert!(
                (g - want).abs() < 2e-6 * (1.0 + want.abs()),
                "gelu({x}) = {g}, want {want}"
            );
        }
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
