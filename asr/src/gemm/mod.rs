//! Matrix multiply for the Whisper forward pass: `Y[m][n] = sum_k X[m][k] * W[n][k] (+ b[n])`.
//!
//! Q8_0 weights (the default) run on the shared `pocket-kernels` crate, the LLM engine's
//! quantized kernels: activations are quantized per 32 values and multiplied in int8 against
//! the weight blocks, interleaved (x8) where this CPU's fastest tiles want it. f32 and f16
//! weights (kept for accuracy comparisons) and the attention products go through the f32
//! GEMM here: weight panels are converted and packed once per call into a per-thread buffer
//! and swept by a 6x16 register-tiled micro-kernel; small `m` (a decoder step) is a GEMV.
//! Work is claimed dynamically by the threads of the shared pool. Kernels are chosen at run
//! time (x86-64: AVX2+FMA+F16C; aarch64: NEON; else the scalar twins in `scalar.rs`);
//! `kernels_parity` tests check they agree (on aarch64 under qemu: `scripts/cross-check`).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "aarch64")]
mod neon;
mod scalar;

use std::cell::RefCell;

use crate::error::AsrError;
use pocket_kernels::repack::PackedBytes;
use pocket_kernels::{ChunkCounter, DType, MatmulScratch, ThreadPool, Weights};

/// Storage of a weight matrix `[n][k]` (output features x input features).
#[derive(Debug)]
pub enum WeightData {
    F32(Vec<f32>),
    F16(Vec<u16>),
    Q8(Q8Matrix),
}

/// Q8_0 blocks (32 weights sharing one f16 scale, ggml's 34-byte layout), row-major or
/// interleaved for this CPU's fastest `pocket-kernels` tiles.
#[derive(Debug)]
pub enum Q8Matrix {
    Rows(Vec<u8>),
    X8(PackedBytes),
}

/// A weight matrix `[n][k]`.
#[derive(Debug)]
pub struct Matrix {
    pub n: usize,
    pub k: usize,
    pub data: WeightData,
}

/// How to keep fp16 checkpoint weights in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WeightFormat {
    /// Keep the f16 values as stored (exact; 2 bytes per weight).
    F16,
    /// Requantize at load to Q8_0 (1.06 bytes per weight; decoder steps read less memory).
    #[default]
    Q8_0,
    /// Expand to f32 (4 bytes per weight; reference for accuracy checks).
    F32,
}

impl Matrix {
    /// Builds a matrix from f16 bits, converting to `fmt` (Q8_0 needs `k % 32 == 0`; other
    /// shapes stay f16).
    pub fn from_f16(n: usize, k: usize, bits: Vec<u16>, fmt: WeightFormat) -> Self {
        debug_assert_eq!(bits.len(), n * k);
        let data = match fmt {
            WeightFormat::F16 => WeightData::F16(bits),
            WeightFormat::Q8_0 if k.is_multiple_of(32) => {
                let f: Vec<f32> = bits
                    .iter()
                    .map(|&b| half::f16::from_bits(b).to_f32())
                    .collect();
                match pocket_kernels::quant::quantize_bytes(DType::Q8_0, &f) {
                    Ok(bytes) => WeightData::Q8(Q8Matrix::new(n, k, bytes)),
                    Err(_) => WeightData::F16(bits),
                }
            }
            WeightFormat::Q8_0 => WeightData::F16(bits),
            WeightFormat::F32 => WeightData::F32(
                bits.iter()
                    .map(|&b| half::f16::from_bits(b).to_f32())
                    .collect(),
            ),
        };
        Self { n, k, data }
    }

    pub fn from_f32(n: usize, k: usize, values: Vec<f32>) -> Self {
        debug_assert_eq!(values.len(), n * k);
        Self {
            n,
            k,
            data: WeightData::F32(values),
        }
    }

    /// Bytes held by the weights.
    pub fn size_bytes(&self) -> usize {
        match &self.data {
            WeightData::F32(v) => v.len() * 4,
            WeightData::F16(v) => v.len() * 2,
            WeightData::Q8(Q8Matrix::Rows(v)) => v.len(),
            WeightData::Q8(Q8Matrix::X8(v)) => v.as_slice().len(),
        }
    }

    /// The f32/f16 storage for this module's GEMM, or `None` for Q8_0 (run by pocket-kernels).
    fn view(&self) -> Option<View<'_>> {
        match &self.data {
            WeightData::F32(v) => Some(View::F32(v)),
            WeightData::F16(v) => Some(View::F16(v)),
            WeightData::Q8(_) => None,
        }
    }

    /// The Q8_0 storage as `pocket-kernels` weights.
    fn kernel_weights(&self) -> Option<Weights<'_>> {
        match &self.data {
            WeightData::Q8(Q8Matrix::Rows(b)) => Weights::new(DType::Q8_0, self.n, self.k, b).ok(),
            WeightData::Q8(Q8Matrix::X8(b)) => {
                Weights::x8(DType::Q8_0, self.n, self.k, b.as_slice()).ok()
            }
            _ => None,
        }
    }
}

impl Q8Matrix {
    /// Row-major Q8_0 bytes of an `n x k` matrix, repacked when that is faster here.
    fn new(n: usize, k: usize, bytes: Vec<u8>) -> Self {
        let packed = Weights::new(DType::Q8_0, n, k, &bytes)
            .ok()
            .and_then(|w| w.repacked());
        match packed {
            Some(p) => Q8Matrix::X8(p),
            None => Q8Matrix::Rows(bytes),
        }
    }
}

/// Borrowed weights of any storage, `[n][k]` row-major.
#[derive(Clone, Copy)]
pub enum View<'a> {
    F32(&'a [f32]),
    F16(&'a [u16]),
}

/// Which kernel family runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// aarch64: NEON is part of the baseline.
    #[cfg(target_arch = "aarch64")]
    Neon,
}

/// Detects the best kernels for this CPU (once per call site; cheap).
#[cfg(not(target_arch = "aarch64"))]
pub fn detect() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("fma")
            && std::is_x86_feature_detected!("f16c")
        {
            return Isa::Avx2;
        }
    }
    Isa::Scalar
}

/// Detects the best kernels for this CPU: NEON, which every aarch64 CPU has.
#[cfg(target_arch = "aarch64")]
pub fn detect() -> Isa {
    Isa::Neon
}

/// Rows of the register tile and columns of a packed panel.
const MR: usize = 6;
const NR: usize = 16;
/// Cache blocking: k per packed panel, columns per packed panel.
const KC: usize = 256;
const NC: usize = 128;
/// Below this many rows the GEMV path is used.
const GEMV_MAX_M: usize = 4;

thread_local! {
    static PANEL: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    /// Quantized activations for the `pocket-kernels` path (grows, never shrinks).
    static SCRATCH: RefCell<Option<MatmulScratch>> = const { RefCell::new(None) };
}

/// `y[m][n] = x[m][k] . w[n][k] + bias[n]` on the pool. Fails only when a pool job
/// panicked ([`AsrError::Kernel`]); `y` is then incomplete.
pub fn matmul(
    pool: &ThreadPool,
    isa: Isa,
    x: &[f32],
    m: usize,
    w: &Matrix,
    bias: Option<&[f32]>,
    y: &mut [f32],
) -> Result<(), AsrError> {
    assert!(
        x.len() >= m * w.k && y.len() >= m * w.n,
        "matmul: buffer too small"
    );
    let (n, k) = (w.n, w.k);
    let Some(view) = w.view() else {
        return quantized_matmul(pool, &x[..m * k], m, w, bias, &mut y[..m * n]);
    };
    let blocks = ChunkCounter::new(n.div_ceil(NR), COL_BLOCKS);
    let out = OutCols::new(&mut y[..m * n], m, n);
    pool.run(|_| {
        while let Some(b) = blocks.next() {
            let cols = b.start * NR..(b.end * NR).min(n);
            // SAFETY: each column block is claimed by one thread only.
            unsafe { matmul_cols(isa, x, m, k, view, bias, &out, cols) };
        }
    })?;
    Ok(())
}

/// Column blocks of `NR` a thread claims at a time in the f32 GEMM.
const COL_BLOCKS: usize = 2;

/// Q8_0 weights: `pocket-kernels`' int8 products, then the bias.
fn quantized_matmul(
    pool: &ThreadPool,
    x: &[f32],
    m: usize,
    w: &Matrix,
    bias: Option<&[f32]>,
    y: &mut [f32],
) -> Result<(), AsrError> {
    let Some(kw) = w.kernel_weights() else {
        unreachable!("Q8 matrices are validated when they are built");
    };
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let scratch = s.get_or_insert_with(MatmulScratch::new);
        pocket_kernels::matmul(pool, &kw, x, m, y, scratch)
    })?;
    if let Some(b) = bias {
        for row in y.chunks_exact_mut(w.n) {
            for (o, bv) in row.iter_mut().zip(b) {
                *o += bv;
            }
        }
    }
    Ok(())
}

/// Single-threaded `matmul` on borrowed weights (used inside per-head parallel loops).
pub fn matmul_view(isa: Isa, x: &[f32], m: usize, k: usize, w: View<'_>, n: usize, y: &mut [f32]) {
    let out = OutCols::new(&mut y[..m * n], m, n);
    // SAFETY: `out` borrows `y` exclusively and this thread writes all its columns.
    unsafe { matmul_cols(isa, x, m, k, w, None, &out, 0..n) };
}

/// The `[m][n]` output of one GEMM shared by pool threads that each own whole column ranges.
/// Only the owned columns of one row are ever borrowed (`span`), never the whole buffer, so
/// no two threads hold overlapping `&mut` references.
struct OutCols<'a> {
    ptr: *mut f32,
    m: usize,
    n: usize,
    _buf: std::marker::PhantomData<&'a mut [f32]>,
}

// SAFETY: threads reach the buffer only through `span`, whose callers own disjoint columns.
unsafe impl Sync for OutCols<'_> {}

impl<'a> OutCols<'a> {
    fn new(y: &'a mut [f32], m: usize, n: usize) -> Self {
        assert_eq!(y.len(), m * n, "matmul: output is not m x n");
        Self {
            ptr: y.as_mut_ptr(),
            m,
            n,
            _buf: std::marker::PhantomData,
        }
    }

    /// Columns `cols` of row `i`.
    ///
    /// # Safety
    /// The caller owns those columns: no other live reference to them exists while the
    /// returned slice does.
    #[allow(clippy::mut_from_ref)]
    unsafe fn span(&self, i: usize, cols: std::ops::Range<usize>) -> &mut [f32] {
        assert!(i < self.m && cols.start <= cols.end && cols.end <= self.n);
        // SAFETY: in bounds (checked above); exclusive by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(i * self.n + cols.start), cols.len()) }
    }
}

/// Columns `cols` of `y = x . wᵀ + bias` into `out`.
///
/// # Safety
/// The calling thread owns columns `cols` of every row of `out` for the whole call.
#[allow(clippy::too_many_arguments)]
unsafe fn matmul_cols(
    isa: Isa,
    x: &[f32],
    m: usize,
    k: usize,
    w: View<'_>,
    bias: Option<&[f32]>,
    out: &OutCols<'_>,
    cols: std::ops::Range<usize>,
) {
    // SAFETY (every `span` below): the spans lie inside `cols`, owned by this thread.
    for i in 0..m {
        let row = unsafe { out.span(i, cols.clone()) };
        match bias {
            Some(b) => row.copy_from_slice(&b[cols.clone()]),
            None => row.fill(0.0),
        }
    }
    if m <= GEMV_MAX_M {
        for j in cols {
            for i in 0..m {
                let xr = &x[i * k..(i + 1) * k];
                let y = unsafe { out.span(i, j..j + 1) };
                y[0] += dot_row(isa, w, j, k, xr);
            }
        }
        return;
    }
    PANEL.with(|p| {
        let mut panel = p.borrow_mut();
        panel.resize(KC * NC, 0.0);
        let mut tile = [0f32; MR * NR];
        let mut n0 = cols.start;
        while n0 < cols.end {
            let nb = (cols.end - n0).min(NC);
            let mut k0 = 0;
            while k0 < k {
                let kb = (k - k0).min(KC);
                pack_panel(isa, w, k, n0, nb, k0, kb, &mut panel);
                for jp in 0..nb.div_ceil(NR) {
                    let pan = &panel[jp * NR * kb..(jp + 1) * NR * kb];
                    let ncols = (nb - jp * NR).min(NR);
                    let mut i0 = 0;
                    while i0 < m {
                        let rows = (m - i0).min(MR);
                        let a = &x[i0 * k + k0..];
                        micro(isa, a, k, rows, kb, pan, &mut tile);
                        for r in 0..rows {
                            let c0 = n0 + jp * NR;
                            let yr = unsafe { out.span(i0 + r, c0..c0 + ncols) };
                            for (o, t) in yr.iter_mut().zip(&tile[r * NR..r * NR + ncols]) {
                                *o += t;
                            }
                        }
                        i0 += rows;
                    }
                }
                k0 += kb;
            }
            n0 += nb;
        }
    });
}

/// Packs `w[n0..n0+nb][k0..k0+kb]` as f32 into `[nb/NR][kb][NR]` panels (zero-padded columns).
#[allow(clippy::too_many_arguments)]
fn pack_panel(
    isa: Isa,
    w: View<'_>,
    k: usize,
    n0: usize,
    nb: usize,
    k0: usize,
    kb: usize,
    panel: &mut [f32],
) {
    let mut row = [0f32; KC];
    for jp in 0..nb.div_ceil(NR) {
        let dst = &mut panel[jp * NR * kb..(jp + 1) * NR * kb];
        for c in 0..NR {
            let j = jp * NR + c;
            if j >= nb {
                for kk in 0..kb {
                    dst[kk * NR + c] = 0.0;
                }
                continue;
            }
            let row = &mut row[..kb];
            load_row(isa, w, n0 + j, k, k0, row);
            for (kk, &v) in row.iter().enumerate() {
                dst[kk * NR + c] = v;
            }
        }
    }
}

/// Converts `w[j][k0..k0+out.len()]` to f32.
fn load_row(isa: Isa, w: View<'_>, j: usize, k: usize, k0: usize, out: &mut [f32]) {
    let len = out.len();
    match w {
        View::F32(v) => out.copy_from_slice(&v[j * k + k0..j * k + k0 + len]),
        View::F16(v) => f16_to_f32(isa, &v[j * k + k0..j * k + k0 + len], out),
    }
}

fn f16_to_f32(isa: Isa, src: &[u16], dst: &mut [f32]) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Avx2 is only returned by `detect` when AVX2, FMA and F16C are present.
        Isa::Avx2 => unsafe { avx2::f16_to_f32(src, dst) },
        _ => scalar::f16_to_f32(src, dst),
    }
}

/// Checks a micro-kernel call's bounds and returns its `MR` row pointers into `a` (rows past
/// `rows` alias row 0: computed but never stored). SIMD tiles read `kb` values from each.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn tile_rows(a: &[f32], lda: usize, rows: usize, kb: usize, panel: &[f32]) -> [*const f32; MR] {
    assert!((1..=MR).contains(&rows) && panel.len() >= kb * NR);
    assert!(a.len() >= (rows - 1) * lda + kb);
    let mut ap = [a.as_ptr(); MR];
    for (r, p) in ap.iter_mut().enumerate().take(rows) {
        *p = a[r * lda..].as_ptr();
    }
    ap
}

fn micro(
    isa: Isa,
    a: &[f32],
    lda: usize,
    rows: usize,
    kb: usize,
    panel: &[f32],
    tile: &mut [f32; MR * NR],
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see `f16_to_f32`; slices are bounds-checked inside before pointer use.
        Isa::Avx2 => unsafe { avx2::micro_6x16(a, lda, rows, kb, panel, tile) },
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => neon::micro_6x16(a, lda, rows, kb, panel, tile),
        Isa::Scalar => scalar::micro_6x16(a, lda, rows, kb, panel, tile),
    }
}

fn dot_row(isa: Isa, w: View<'_>, j: usize, k: usize, x: &[f32]) -> f32 {
    match (isa, w) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see `f16_to_f32`.
        (Isa::Avx2, View::F32(v)) => unsafe { avx2::dot_f32(&v[j * k..(j + 1) * k], x) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see `f16_to_f32`.
        (Isa::Avx2, View::F16(v)) => unsafe { avx2::dot_f16(&v[j * k..(j + 1) * k], x) },
        #[cfg(target_arch = "aarch64")]
        (Isa::Neon, View::F32(v)) => neon::dot_f32(&v[j * k..(j + 1) * k], x),
        (_, View::F32(v)) => scalar::dot_f32(&v[j * k..(j + 1) * k], x),
        (_, View::F16(v)) => scalar::dot_f16(&v[j * k..(j + 1) * k], x),
    }
}

#[cfg(test)]
mod tests;

/// Row `j` of a weight matrix as f32 (embedding lookup).
pub fn row_f32(isa: Isa, w: &Matrix, j: usize, out: &mut [f32]) {
    let out = &mut out[..w.k];
    match (w.view(), w.kernel_weights()) {
        (Some(view), _) => load_row(isa, view, j, w.k, 0, out),
        (None, Some(kw)) => {
            if kw.dequantize_row(j, out).is_err() {
                out.fill(0.0);
            }
        }
        (None, None) => out.fill(0.0),
    }
}

/// Dot product of two f32 slices.
pub fn dot(isa: Isa, a: &[f32], b: &[f32]) -> f32 {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Avx2 is only returned by `detect` when the features are present.
        Isa::Avx2 => unsafe { avx2::dot_f32(a, b) },
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => neon::dot_f32(a, b),
        Isa::Scalar => scalar::dot_f32(a, b),
    }
}

/// `y += a * x`.
pub fn axpy(isa: Isa, a: f32, x: &[f32], y: &mut [f32]) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Avx2 is only returned by `detect` when the features are present.
        Isa::Avx2 => unsafe { avx2::axpy(a, x, y) },
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => neon::axpy(a, x, y),
        Isa::Scalar => scalar::axpy(a, x, y),
    }
}
