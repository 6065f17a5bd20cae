//! Parity tests: every SIMD tile against the scalar reference, and the scalar reference
//! against plain f32 arithmetic on dequantized values.

use super::scalar::{ActRow, dot_row};
use super::*;
use crate::quant::testutil::Rng;
use crate::quant::{self, BlockQ8A, BlockQ8K, dequantize_row};
use crate::repack::Layout;
use crate::{ActKind, DType, Isa};

/// Random weights of `dtype`: quantized random values, plus raw random bytes with finite
/// scales for the block formats (every bit pattern of the payload).
fn random_weights(rng: &mut Rng, dtype: DType, rows: usize, k: usize, raw: bool) -> Vec<u8> {
    let x = rng.uniform_vec(rows * k, 1.5);
    let mut bytes = match dtype {
        DType::Q4_K => quant::block_bytes(
            &x.chunks(256)
                .map(<quant::BlockQ4K as quant::Quantize>::quantize)
                .collect::<Vec<_>>(),
        )
        .to_vec(),
        DType::Q6_K => quant::block_bytes(
            &x.chunks(256)
                .map(<quant::BlockQ6K as quant::Quantize>::quantize)
                .collect::<Vec<_>>(),
        )
        .to_vec(),
        _ => quant::quantize_bytes(dtype, &x).expect("quantize"),
    };
    if raw && dtype.is_quantized() {
        let bb = dtype.block_bytes();
        for blk in bytes.chunks_mut(bb) {
            for b in blk.iter_mut() {
                *b = rng.next_u64() as u8;
            }
            // Keep the f16 scales finite and moderate: 0x2000..0x3BFF (~0.008 .. 1.0).
            let scale_at: &[usize] = match dtype {
                DType::Q4_1 | DType::Q5_1 | DType::Q4_K | DType::Q5_K => &[0, 2],
                DType::Q6_K => &[208],
                _ => &[0],
            };
            for &o in scale_at {
                let h = 0x2000 + (rng.next_u64() % 0x1C00) as u16;
                blk[o..o + 2].copy_from_slice(&h.to_le_bytes());
            }
        }
    }
    bytes
}

/// Prepared activations for `n` tokens of `k`.
fn prepare(kind: ActKind, x: &[f32], k: usize) -> (Vec<u8>, usize) {
    let n = x.len() / k;
    match kind {
        ActKind::F32 => (x.iter().flat_map(|v| v.to_ne_bytes()).collect(), 4 * k),
        ActKind::Q8A => {
            let mut b = vec![BlockQ8A::ZERO; n * k / 32];
            quant::quantize_q8a(x, &mut b);
            let bytes = unsafe {
                std::slice::from_raw_parts(b.as_ptr().cast::<u8>(), b.len() * size_of::<BlockQ8A>())
            };
            (bytes.to_vec(), act_row_bytes(kind, k))
        }
        ActKind::Q8K => {
            let mut b = vec![BlockQ8K::ZERO; n * k / 256];
            quant::quantize_q8k(x, &mut b);
            let bytes =
                unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<u8>(), b.len() * 292) };
            (bytes.to_vec(), act_row_bytes(kind, k))
        }
    }
}

/// Runs `f` over the tile; activations are copied to aligned storage first.
fn run(
    f: TileFn,
    dtype: DType,
    w: &[u8],
    rows: usize,
    acts: &(Vec<u8>, usize),
    n: usize,
    k: usize,
) -> Vec<f32> {
    let mut a = vec![0u64; acts.0.len().div_ceil(8)];
    let ab = unsafe { std::slice::from_raw_parts_mut(a.as_mut_ptr().cast::<u8>(), acts.0.len()) };
    ab.copy_from_slice(&acts.0);
    let mut out = vec![f32::NAN; n * rows];
    let t = Tile {
        dtype,
        w: w.as_ptr(),
        w_stride: dtype.row_bytes(k).expect("row"),
        nrows: rows,
        a: a.as_ptr().cast(),
        a_stride: acts.1,
        ntok: n,
        k,
        out: out.as_mut_ptr(),
        out_stride: rows,
    };
    unsafe { f(&t) };
    out
}

/// Random weights of `dtype` (row-major and interleaved) and activations for `n` tokens of
/// `k`, for comparing the interleaved tiles of two families.
struct X8Case {
    dtype: DType,
    rows: usize,
    n: usize,
    k: usize,
    w: Vec<u8>,
    packed: Vec<u8>,
    acts: (Vec<u8>, usize),
}

impl X8Case {
    fn random(rng: &mut Rng, dtype: DType, rows: usize, n: usize, k: usize, raw: bool) -> Self {
        let w = random_weights(rng, dtype, rows, k, raw);
        let x = rng.uniform_vec(n * k, 2.0);
        let acts = prepare(dtype.act_kind(), &x, k);
        let packed = crate::repack::repack_x8(dtype, rows, k, &w)
            .expect("repack")
            .as_slice()
            .to_vec();
        Self {
            dtype,
            rows,
            n,
            k,
            w,
            packed,
            acts,
        }
    }

    /// The interleaved tile of `isa` over the case.
    fn run_on(&self, isa: Isa) -> Vec<f32> {
        let f = tile_fn(isa, self.dtype, Layout::X8);
        run(
            f,
            self.dtype,
            &self.packed,
            self.rows,
            &self.acts,
            self.n,
            self.k,
        )
    }
}

fn ks(dtype: DType) -> &'static [usize] {
    if dtype.block_len() == 256 {
        &[256, 768]
    } else {
        &[32, 96, 576, 24 * 32]
    }
}

#[test]
fn simd_tiles_match_scalar() {
    let mut rng = Rng::new(42);
    eprintln!("kernel families on this CPU: {:?}", Isa::available());
    for isa in Isa::simd_under_test() {
        for (dtype, layout) in DType::ALL.into_iter().map(|d| (d, Layout::Rows)).chain(
            DType::ALL
                .into_iter()
                .filter(|&d| crate::repack::has_x8(d))
                .map(|d| (d, Layout::X8)),
        ) {
            for &k in ks(dtype) {
                for raw in [false, true] {
                    let (mut rows, mut n) = (
                        1 + (rng.next_u64() % 11) as usize,
                        1 + (rng.next_u64() % 11) as usize,
                    );
                    if layout == Layout::X8 {
                        rows = 8 * (1 + rows % 3);
                        if raw {
                            // Past the widest token block (8) and into the one-token tail.
                            n = 9 + n % 3;
                        }
                    }
                    let w = random_weights(&mut rng, dtype, rows, k, raw);
                    let x = rng.uniform_vec(n * k, 2.0);
                    let acts = prepare(dtype.act_kind(), &x, k);
                    let want = run(
                        scalar::tile_fn(dtype, Layout::Rows),
                        dtype,
                        &w,
                        rows,
                        &acts,
                        n,
                        k,
                    );
                    let packed;
                    let wl = if layout == Layout::X8 {
                        packed = crate::repack::repack_x8(dtype, rows, k, &w).expect("repack");
                        // The scalar twin of the interleaved kernel must agree exactly.
                        let s = run(
                            scalar::tile_fn(dtype, layout),
                            dtype,
                            packed.as_slice(),
                            rows,
                            &acts,
                            n,
                            k,
                        );
                        assert_eq!(s, want, "scalar x8 {dtype:?}");
                        packed.as_slice()
                    } else {
                        &w
                    };
                    let got = run(tile_fn(isa, dtype, layout), dtype, wl, rows, &acts, n, k);
                    let mut deq = vec![0.0; k];
                    for t in 0..n {
                        for r in 0..rows {
                            dequantize_row(
                                dtype,
                                &w[r * w.len() / rows..(r + 1) * w.len() / rows],
                                &mut deq,
                            )
                            .expect("deq");
                            let mag: f32 = deq
                                .iter()
                                .zip(&x[t * k..])
                                .map(|(a, b)| (a * b).abs())
                                .sum();
                            let (a, b) = (want[t * rows + r], got[t * rows + r]);
                            assert!(
                                (a - b).abs() <= 1e-5 * mag + 1e-6,
                                "{isa:?} {dtype:?} {layout:?} k={k} raw={raw} r={r} t={t}: scalar {a} simd {b}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn scalar_dots_match_dequantized_arithmetic() {
    let mut rng = Rng::new(7);
    for dtype in DType::ALL {
        for &k in ks(dtype) {
            let w = random_weights(&mut rng, dtype, 1, k, false);
            let x = rng.uniform_vec(k, 1.0);
            let mut deq = vec![0.0; k];
            dequantize_row(dtype, &w, &mut deq).expect("deq");
            let exact: f64 = deq
                .iter()
                .zip(&x)
                .map(|(a, b)| f64::from(*a) * f64::from(*b))
                .sum();
            let mag: f64 = deq
                .iter()
                .zip(&x)
                .map(|(a, b)| f64::from((a * b).abs()))
                .sum();
            let got = match dtype.act_kind() {
                ActKind::F32 => dot_row(dtype, &w, ActRow::F32(&x)),
                ActKind::Q8A => {
                    let mut b = vec![BlockQ8A::ZERO; k / 32];
                    quant::quantize_q8a(&x, &mut b);
                    dot_row(dtype, &w, ActRow::Q8A(&b))
                }
                ActKind::Q8K => {
                    let mut b = vec![BlockQ8K::ZERO; k / 256];
                    quant::quantize_q8k(&x, &mut b);
                    dot_row(dtype, &w, ActRow::Q8K(&b))
                }
            };
            // 8-bit activations: relative error of a few tenths of a percent of the magnitude.
            let tol = if dtype.is_quantized() {
                0.01 * mag
            } else {
                1e-5 * mag
            };
            assert!(
                (f64::from(got) - exact).abs() <= tol + 1e-6,
                "{dtype:?} k={k}: {got} vs {exact}"
            );
        }
    }
}

#[test]
fn simd_activation_quantizers_are_bit_identical() {
    let mut rng = Rng::new(3);
    for isa in Isa::under_test() {
        let q = act_quant(isa);
        for scale in [0.0, 1e-3, 1.0, 300.0] {
            let x = rng.uniform_vec(512, scale);
            let mut want = vec![BlockQ8A::ZERO; 16];
            let mut got = vec![BlockQ8A::ZERO; 16];
            quant::quantize_q8a(&x, &mut want);
            (q.q8a)(&x, &mut got);
            assert_eq!(want, got, "{isa:?} q8a scale {scale}");
            let mut want = vec![BlockQ8K::ZERO; 2];
            let mut got = vec![BlockQ8K::ZERO; 2];
            quant::quantize_q8k(&x, &mut want);
            (q.q8k)(&x, &mut got);
            assert_eq!(want, got, "{isa:?} q8k scale {scale}");
        }
    }
}

/// The AMX tiles work on 16 × 16 blocks and hand the rest to the VNNI tiles: on shapes with
/// whole blocks, a leftover 8-row group and leftover tokens they must give the VNNI tiles'
/// results bit for bit (same integer sums, same float steps), and both the scalar ones
/// within rounding.
#[test]
fn amx_k_quant_tiles_match_vnni_and_scalar() {
    let isas = Isa::simd_under_test();
    #[cfg(target_arch = "x86_64")]
    if Isa::best_supported() != Isa::Amx {
        eprintln!("no AMX-INT8 on this CPU (or no OS permission): the AMX tile is not checked");
    }
    if !isas.contains(&Isa::Amx) {
        return;
    }
    let mut rng = Rng::new(11);
    for (dtype, rows, n, k, raw) in [DType::Q4_K, DType::Q6_K].into_iter().flat_map(|d| {
        [
            (16, 16, 256, false),
            (32, 64, 768, false),
            (40, 37, 512, true),
            (24, 70, 256, true),
            (8, 33, 256, false),
            (48, 5, 256, true),
        ]
        .map(|(rows, n, k, raw)| (d, rows, n, k, raw))
    }) {
        let case = X8Case::random(&mut rng, dtype, rows, n, k, raw);
        let (amx, vnni) = (case.run_on(Isa::Amx), case.run_on(Isa::Avx512Vnni));
        let scalar = run(
            scalar::tile_fn(dtype, Layout::Rows),
            dtype,
            &case.w,
            rows,
            &case.acts,
            n,
            k,
        );
        assert!(
            amx.iter().all(|v| v.is_finite()),
            "rows={rows} n={n} k={k}: unwritten outputs"
        );
        assert_eq!(amx, vnni, "rows={rows} n={n} k={k} raw={raw}");
        for (i, (a, s)) in amx.iter().zip(&scalar).enumerate() {
            assert!(
                (a - s).abs() <= 1e-4 * s.abs().max(1.0),
                "{dtype:?} rows={rows} n={n} k={k} at {i}: amx {a} scalar {s}"
            );
        }
    }
}

/// The AVX-VNNI tiles are the AVX-512 VNNI ones in the other encoding of `vpdpbusd` (4 tokens
/// at a time instead of 8): where the CPU has both, every interleaved format must give the
/// same results bit for bit.
#[test]
fn both_vnni_encodings_agree_bit_for_bit() {
    let isas = Isa::simd_under_test();
    if !(isas.contains(&Isa::AvxVnni) && isas.contains(&Isa::Avx512Vnni)) {
        eprintln!("this CPU lacks AVX-VNNI or AVX-512 VNNI: the two encodings are not compared");
        return;
    }
    let mut rng = Rng::new(12);
    for dtype in DType::ALL.into_iter().filter(|&d| crate::repack::has_x8(d)) {
        for (rows, n) in [(8, 1), (16, 4), (24, 9), (40, 13)] {
            let k = ks(dtype)[1];
            let case = X8Case::random(&mut rng, dtype, rows, n, k, n % 2 == 1);
            let (vex, evex) = (case.run_on(Isa::AvxVnni), case.run_on(Isa::Avx512Vnni));
            assert!(
                vex.iter().all(|v| v.is_finite()),
                "{dtype:?}: unwritten outputs"
            );
            assert_eq!(vex, evex, "{dtype:?} rows={rows} n={n} k={k}");
        }
    }
}
