//! Parity of the SIMD kernels with the scalar twins, and of the blocked GEMM with a naive one.

use super::*;

fn lcg(seed: &mut u64) -> f32 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

fn naive(x: &[f32], m: usize, k: usize, w: &[f32], n: usize, b: Option<&[f32]>) -> Vec<f32> {
    let mut y = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = b.map_or(0.0, |b| b[j]) as f64;
            for kk in 0..k {
                s += x[i * k + kk] as f64 * w[j * k + kk] as f64;
            }
            y[i * n + j] = s as f32;
        }
    }
    y
}

fn dequant(w: &Matrix) -> Vec<f32> {
    let mut out = vec![0f32; w.n * w.k];
    for (j, row) in out.chunks_exact_mut(w.k).enumerate() {
        row_f32(Isa::Scalar, w, j, row);
    }
    out
}

/// The scalar kernels, then this CPU's SIMD ones. Where the CPU has SIMD it must be in the
/// list (a parity test may not pass comparing scalar code with itself); where it has none,
/// a note says only the scalar kernels are checked.
fn isas() -> Vec<Isa> {
    let mut v = vec![Isa::Scalar];
    if detect() != Isa::Scalar {
        v.push(detect());
    }
    if pocket_kernels::Isa::cpu_has_simd() {
        assert!(
            v.len() > 1,
            "this CPU has SIMD, but detect() chose {:?}",
            v[0]
        );
    } else {
        eprintln!("no SIMD on this CPU: only the scalar kernels are checked");
    }
    v
}

#[test]
fn kernels_parity_gemm_and_gemv_all_formats() {
    let mut seed = 7u64;
    let pool = ThreadPool::new(2).expect("pool");
    for &(m, k, n) in &[
        (1, 64, 40),
        (3, 96, 17),
        (4, 384, 33),
        (7, 64, 16),
        (13, 300, 70),
        (40, 544, 300),
    ] {
        let x: Vec<f32> = (0..m * k).map(|_| lcg(&mut seed)).collect();
        let wf: Vec<f32> = (0..n * k).map(|_| lcg(&mut seed) * 0.5).collect();
        let b: Vec<f32> = (0..n).map(|_| lcg(&mut seed)).collect();
        let bits: Vec<u16> = wf
            .iter()
            .map(|&v| half::f16::from_f32(v).to_bits())
            .collect();
        for fmt in [WeightFormat::F32, WeightFormat::F16, WeightFormat::Q8_0] {
            let w = Matrix::from_f16(n, k, bits.clone(), fmt);
            let want = naive(&x, m, k, &dequant(&w), n, Some(&b));
            for isa in isas() {
                let mut y = vec![f32::NAN; m * n];
                matmul(&pool, isa, &x, m, &w, Some(&b), &mut y).expect("matmul");
                // Q8_0 runs on pocket-kernels, which quantizes the activations to 8 bits too
                // (error ~ 1/254 of each block's largest input per term).
                let tol = match w.data {
                    WeightData::Q8(_) => 4e-3,
                    _ => 1e-4,
                };
                for (i, (g, e)) in y.iter().zip(&want).enumerate() {
                    assert!(
                        (g - e).abs() <= tol * (1.0 + e.abs()) * (k as f32).sqrt(),
                        "{isa:?} {fmt:?} m{m} k{k} n{n} at {i}: {g} vs {e}"
                    );
                }
            }
        }
    }
}

#[test]
fn q8_rows_stay_within_the_quantization_error() {
    let mut seed = 3u64;
    let (n, k) = (16, 128);
    let x: Vec<f32> = (0..n * k).map(|_| lcg(&mut seed)).collect();
    let bits: Vec<u16> = x
        .iter()
        .map(|&v| half::f16::from_f32(v).to_bits())
        .collect();
    let w = Matrix::from_f16(n, k, bits, WeightFormat::Q8_0);
    assert!(matches!(w.data, WeightData::Q8(_)));
    let back = dequant(&w);
    for (c, b) in x.chunks(32).zip(back.chunks(32)) {
        let amax = c.iter().fold(0f32, |a, v| a.max(v.abs()));
        for (a, b) in c.iter().zip(b) {
            assert!((a - b).abs() <= amax / 127.0 * 0.5 + amax * 2e-3);
        }
    }
}

#[test]
fn f16_conversion_parity() {
    let src: Vec<u16> = (0..1000u16)
        .map(|i| half::f16::from_f32(i as f32 * 0.37 - 100.0).to_bits())
        .collect();
    let mut a = vec![0f32; 1000];
    let mut b = vec![0f32; 1000];
    scalar::f16_to_f32(&src, &mut a);
    for isa in isas() {
        f16_to_f32(isa, &src, &mut b);
        assert_eq!(a, b, "{isa:?}");
    }
}
