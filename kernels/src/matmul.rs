//! Matrix products against weight matrices in any supported format: `out = x · Wᵀ` for one
//! token (decode) or many (prefill, tiled so each weight block is loaded once per group of
//! tokens), split over a [`ThreadPool`] in row chunks claimed dynamically.

use crate::pool::{ChunkCounter, ThreadPool};
use crate::quant::{BlockQ8A, BlockQ8K};
use crate::region::RegionCounter;
use crate::repack::{self, GROUP, Layout};
use crate::tile::{self, Tile, TileFn};
use crate::{ActKind, DType, Isa, KernelError};

/// A borrowed weight matrix: `rows` output features, each a row of `cols` input weights in
/// `dtype` (GGUF's `ne = [cols, rows]`), rows stored one after another.
#[derive(Clone, Copy, Debug)]
pub struct Weights<'a> {
    dtype: DType,
    layout: Layout,
    rows: usize,
    cols: usize,
    data: &'a [u8],
}

impl<'a> Weights<'a> {
    /// Checks that `data` holds exactly `rows x cols` elements of `dtype`.
    pub fn new(
        dtype: DType,
        rows: usize,
        cols: usize,
        data: &'a [u8],
    ) -> Result<Self, KernelError> {
        if !cols.is_multiple_of(dtype.block_len()) {
            return Err(KernelError::RaggedRow {
                dtype,
                block: dtype.block_len(),
                cols,
            });
        }
        let expected = dtype
            .matrix_bytes(rows, cols)
            .ok_or(KernelError::WeightSize {
                dtype,
                rows,
                cols,
                expected: usize::MAX,
                actual: data.len(),
            })?;
        if data.len() != expected {
            return Err(KernelError::WeightSize {
                dtype,
                rows,
                cols,
                expected,
                actual: data.len(),
            });
        }
        Ok(Weights {
            dtype,
            layout: Layout::Rows,
            rows,
            cols,
            data,
        })
    }

    /// A matrix in the interleaved layout made by [`repack::repack_x8`].
    pub fn x8(dtype: DType, rows: usize, cols: usize, data: &'a [u8]) -> Result<Self, KernelError> {
        if !repack::has_x8(dtype) || !rows.is_multiple_of(GROUP) {
            return Err(KernelError::Unsupported(dtype));
        }
        let w = Weights::new(dtype, rows, cols, data)?;
        Ok(Weights {
            layout: Layout::X8,
            ..w
        })
    }

    /// The same matrix repacked for the fastest kernels of this CPU, if that helps;
    /// `None` when the row-major layout is already what the kernels want.
    pub fn repacked(&self) -> Option<repack::PackedBytes> {
        if !self.wants_repack() {
            return None;
        }
        repack::repack_x8(self.dtype, self.rows, self.cols, self.data).ok()
    }

    /// Whether [`Weights::repacked`] would return a faster layout on this CPU.
    pub fn wants_repack(&self) -> bool {
        self.layout == Layout::Rows
            && repack::has_x8(self.dtype)
            && self.rows.is_multiple_of(GROUP)
            && tile::has_x8_kernel(Isa::detect(), self.dtype)
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn rows(&self) -> usize {
        self.rows
    }
    pub fn cols(&self) -> usize {
        self.cols
    }
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The bytes of row `r` of a row-major matrix (panics if `r >= rows` or the layout is
    /// interleaved).
    pub fn row(&self, r: usize) -> &'a [u8] {
        assert_eq!(self.layout, Layout::Rows, "row() of an interleaved matrix");
        let rb = self.data.len() / self.rows.max(1);
        &self.data[r * rb..(r + 1) * rb]
    }

    /// Writes row `r` as f32 into `out` (`cols` values), e.g. an embedding lookup.
    pub fn dequantize_row(&self, r: usize, out: &mut [f32]) -> Result<(), KernelError> {
        if r >= self.rows || out.len() != self.cols {
            return Err(KernelError::Shape(format!(
                "row {r} of {}x{} into {} values",
                self.rows,
                self.cols,
                out.len()
            )));
        }
        match self.layout {
            Layout::Rows => crate::quant::dequantize_row(self.dtype, self.row(r), out),
            Layout::X8 => {
                repack::dequantize_row_x8(self.dtype, self.cols, self.data, r, out);
                Ok(())
            }
        }
    }
}

/// Reusable buffers for prepared (quantized) activations; grows to the largest use and is
/// never shrunk, so steady-state matmuls allocate nothing.
#[derive(Debug)]
pub struct MatmulScratch {
    q8a: Vec<BlockQ8A>,
    q8k: Vec<BlockQ8K>,
    isa: Isa,
}

impl Default for MatmulScratch {
    fn default() -> Self {
        MatmulScratch::new()
    }
}

impl MatmulScratch {
    /// Scratch using the best kernels of this CPU.
    pub fn new() -> MatmulScratch {
        MatmulScratch::with_isa(Isa::detect())
    }

    /// Scratch bound to one kernel family (tests compare families on the same inputs).
    pub fn with_isa(isa: Isa) -> MatmulScratch {
        MatmulScratch {
            q8a: Vec::new(),
            q8k: Vec::new(),
            isa,
        }
    }

    /// The kernel family in use.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Preallocates room for `n` tokens of `k` inputs.
    pub fn reserve(&mut self, n: usize, k: usize) {
        grow(&mut self.q8a, n * k / 32, BlockQ8A::ZERO);
        grow(&mut self.q8k, n * k / 256, BlockQ8K::ZERO);
    }
}

fn grow<T: Copy>(v: &mut Vec<T>, n: usize, zero: T) {
    if v.len() < n {
        v.resize(n, zero);
    }
}

/// One matrix of a [`matmul_many`] call and where its result goes (`n x rows`, row-major).
#[derive(Debug)]
pub struct MatmulJob<'w, 'o> {
    pub w: Weights<'w>,
    pub out: &'o mut [f32],
}

/// `out[t * rows + r] = Σ_c x[t * cols + c] · W[r][c]` for `n` tokens.
pub fn matmul(
    pool: &ThreadPool,
    w: &Weights<'_>,
    x: &[f32],
    n: usize,
    out: &mut [f32],
    scratch: &mut MatmulScratch,
) -> Result<(), KernelError> {
    matmul_many(pool, &mut [MatmulJob { w: *w, out }], x, n, scratch)
}

/// Several matrices applied to the same input in one parallel dispatch (e.g. Q, K and V, or
/// gate and up). All must have the same `cols`. At most [`MAX_JOBS`] jobs.
pub fn matmul_many(
    pool: &ThreadPool,
    jobs: &mut [MatmulJob<'_, '_>],
    x: &[f32],
    n: usize,
    scratch: &mut MatmulScratch,
) -> Result<(), KernelError> {
    let Some(first) = jobs.first() else {
        return Ok(());
    };
    let k = first.w.cols;
    if jobs.len() > MAX_JOBS {
        return Err(KernelError::Shape(format!(
            "{} jobs, at most {MAX_JOBS}",
            jobs.len()
        )));
    }
    if x.len() != n * k {
        return Err(KernelError::Shape(format!(
            "input has {} values, want {n} x {k}",
            x.len()
        )));
    }
    for j in jobs.iter() {
        if j.w.cols != k || j.out.len() != n * j.w.rows {
            return Err(KernelError::Shape(format!(
                "matrix {}x{} with output of {} values for {n} tokens of {k}",
                j.w.rows,
                j.w.cols,
                j.out.len()
            )));
        }
    }
    if n == 0 {
        return Ok(());
    }
    let isa = scratch.isa;
    prepare_acts(pool, jobs, x, n, k, scratch)?;

    // Describe every job once: kernel, activation base, row chunking.
    let mut plans = [Plan::EMPTY; MAX_JOBS];
    let mut total_chunks = 0usize;
    for (plan, job) in plans.iter_mut().zip(jobs.iter_mut()) {
        let kind = job.w.dtype.act_kind();
        let a = match kind {
            ActKind::F32 => x.as_ptr().cast::<u8>(),
            ActKind::Q8A => scratch.q8a.as_ptr().cast::<u8>(),
            ActKind::Q8K => scratch.q8k.as_ptr().cast::<u8>(),
        };
        let chunk = row_chunk(job.w.rows, n, pool.threads());
        *plan = Plan {
            tile: tile::tile_fn(isa, job.w.dtype, job.w.layout),
            dtype: job.w.dtype,
            w: job.w.data.as_ptr(),
            w_stride: job.w.dtype.row_bytes(k).unwrap_or(0),
            rows: job.w.rows,
            a,
            a_stride: tile::act_row_bytes(kind, k),
            out: job.out.as_mut_ptr(),
            chunk,
            first_chunk: total_chunks,
        };
        total_chunks += job.w.rows.div_ceil(chunk);
    }
    let plans = &plans[..jobs.len()];
    if n == 1 {
        return run_decode(pool, plans, k);
    }
    let tok_chunk = TOKEN_CHUNK;
    let n_tok_chunks = n.div_ceil(tok_chunk);
    let counter = ChunkCounter::new(total_chunks * n_tok_chunks, 1);
    let shared = SendPlans(plans);
    pool.run(|_| {
        let plans = shared.get();
        while let Some(item) = counter.next() {
            let item = item.start;
            let (chunk_id, tc) = (item / n_tok_chunks, item % n_tok_chunks);
            let p = plans
                .iter()
                .rev()
                .find(|p| p.first_chunk <= chunk_id)
                .unwrap_or(&plans[0]);
            let r0 = (chunk_id - p.first_chunk) * p.chunk;
            let t0 = tc * tok_chunk;
            let tile = Tile {
                dtype: p.dtype,
                // SAFETY: r0 < rows and t0 < n, so the offsets stay inside the buffers
                // validated above; chunks are disjoint, so no two threads write one value.
                w: unsafe { p.w.add(r0 * p.w_stride) },
                w_stride: p.w_stride,
                nrows: p.chunk.min(p.rows - r0),
                a: unsafe { p.a.add(t0 * p.a_stride) },
                a_stride: p.a_stride,
                ntok: tok_chunk.min(n - t0),
                k,
                out: unsafe { p.out.add(t0 * p.rows + r0) },
                out_stride: p.rows,
            };
            // SAFETY: the tile lies inside validated buffers and matches the kernel's format.
            unsafe { (p.tile)(&tile) };
        }
    })?;
    Ok(())
}

/// One token: the rows of all jobs, in units of [`DECODE_UNIT`], as one region per thread
/// ([`RegionCounter`]). Each thread streams its region front to back, in claims that shrink
/// towards the region's end (half of what is left, down to [`DECODE_MIN_CLAIM`]), and then
/// helps finish the other regions. A thread's weights stay one sequential stream; shared
/// shrinking claims broke both streams at every claim and made these matrix-vector products
/// 5-6% slower end to end (Q4_0 decode of the MNN-Pocket shape, per-token A/B in one process).
fn run_decode(pool: &ThreadPool, plans: &[Plan], k: usize) -> Result<(), KernelError> {
    let mut first = [0usize; MAX_JOBS + 1];
    for (i, p) in plans.iter().enumerate() {
        first[i + 1] = first[i] + p.rows.div_ceil(DECODE_UNIT);
    }
    let total = first[plans.len()];
    let row_bytes = plans.iter().map(|p| p.w_stride).max().unwrap_or(1).max(1);
    let min = (DECODE_MIN_CLAIM / (DECODE_UNIT * row_bytes)).max(1);
    let counter = RegionCounter::new(total, pool.threads(), min, 2);
    let shared = SendPlans(plans);
    pool.run(|tid| {
        let plans = shared.get();
        let mut walk = counter.walk(tid);
        while let Some(claim) = counter.next(&mut walk) {
            let mut u = claim.start;
            while u < claim.end {
                let j = (0..plans.len()).rev().find(|&j| first[j] <= u).unwrap_or(0);
                let p = &plans[j];
                let end = claim.end.min(first[j + 1]);
                let r0 = (u - first[j]) * DECODE_UNIT;
                let r1 = ((end - first[j]) * DECODE_UNIT).min(p.rows);
                let tile = Tile {
                    dtype: p.dtype,
                    // SAFETY: r0 < rows, so the offset stays inside the validated matrix;
                    // claims are disjoint, so no two threads write one value.
                    w: unsafe { p.w.add(r0 * p.w_stride) },
                    w_stride: p.w_stride,
                    nrows: r1 - r0,
                    a: p.a,
                    a_stride: p.a_stride,
                    ntok: 1,
                    k,
                    out: unsafe { p.out.add(r0) },
                    out_stride: p.rows,
                };
                // SAFETY: the tile lies inside validated buffers and matches the kernel's format.
                unsafe { (p.tile)(&tile) };
                u = end;
            }
        }
    })
}

/// Rows per unit of decode work (a multiple of the interleaved group).
const DECODE_UNIT: usize = 16;

/// Smallest decode claim, in weight bytes: below this the atomic claim and the restart of
/// the memory stream cost more than the balance gains.
const DECODE_MIN_CLAIM: usize = 8 << 10;

/// Most matrices one [`matmul_many`] call takes.
pub const MAX_JOBS: usize = 8;

/// Tokens per work item in prefill: the weights of a row chunk stay in cache while this many
/// tokens stream past them.
const TOKEN_CHUNK: usize = 64;

#[derive(Clone, Copy)]
struct Plan {
    tile: TileFn,
    dtype: DType,
    w: *const u8,
    w_stride: usize,
    rows: usize,
    a: *const u8,
    a_stride: usize,
    out: *mut f32,
    chunk: usize,
    first_chunk: usize,
}

impl Plan {
    const EMPTY: Plan = Plan {
        tile: tile::scalar::tile_fn(DType::F32, Layout::Rows),
        dtype: DType::F32,
        w: std::ptr::null(),
        w_stride: 0,
        rows: 0,
        a: std::ptr::null(),
        a_stride: 0,
        out: std::ptr::null_mut(),
        chunk: 1,
        first_chunk: 0,
    };
}

/// Shares the plans (raw pointers into buffers borrowed for the whole call) with the pool.
struct SendPlans<'a>(&'a [Plan]);

impl<'a> SendPlans<'a> {
    fn get(&self) -> &'a [Plan] {
        self.0
    }
}
// SAFETY: the pointers stay valid for the `pool.run` call; threads write disjoint chunks.
unsafe impl Sync for SendPlans<'_> {}

/// Rows per work item: a multiple of 16, small enough that every thread gets several items
/// (dynamic balance on a busy machine), large enough to amortize the per-item overhead.
fn row_chunk(rows: usize, n: usize, threads: usize) -> usize {
    let target = if n > 1 { 32 } else { 16 };
    let per_thread = rows / (threads * 4).max(1);
    let chunk = per_thread.clamp(target, if n > 1 { 64 } else { 256 });
    chunk.div_ceil(16) * 16
}

/// Quantizes `x` into every activation format the jobs need (in parallel for big batches).
fn prepare_acts(
    pool: &ThreadPool,
    jobs: &[MatmulJob<'_, '_>],
    x: &[f32],
    n: usize,
    k: usize,
    scratch: &mut MatmulScratch,
) -> Result<(), KernelError> {
    let q = tile::act_quant(scratch.isa);
    let need = |kind| jobs.iter().any(|j| j.w.dtype.act_kind() == kind);
    if need(ActKind::Q8A) {
        grow(&mut scratch.q8a, n * k / 32, BlockQ8A::ZERO);
        quantize_rows(pool, x, n, k, &mut scratch.q8a[..n * k / 32], q.q8a)?;
    }
    if need(ActKind::Q8K) {
        grow(&mut scratch.q8k, n * k / 256, BlockQ8K::ZERO);
        quantize_rows(pool, x, n, k, &mut scratch.q8k[..n * k / 256], q.q8k)?;
    }
    Ok(())
}

fn quantize_rows<B: Send>(
    pool: &ThreadPool,
    x: &[f32],
    n: usize,
    k: usize,
    out: &mut [B],
    f: fn(&[f32], &mut [B]),
) -> Result<(), KernelError> {
    if n * k < 1 << 14 || pool.threads() == 1 {
        f(x, out);
        return Ok(());
    }
    let per = out.len() / n;
    let counter = ChunkCounter::new(n, 4);
    let base = SendPtr(out.as_mut_ptr());
    pool.run(|_| {
        let base = base.get();
        while let Some(r) = counter.next() {
            // SAFETY: token ranges are disjoint and inside `out`.
            let o =
                unsafe { std::slice::from_raw_parts_mut(base.0.add(r.start * per), r.len() * per) };
            f(&x[r.start * k..r.end * k], o);
        }
    })
}

struct SendPtr<T>(*mut T);

impl<T> SendPtr<T> {
    fn get(&self) -> &Self {
        self
    }
}
// SAFETY: used only to hand disjoint sub-slices to pool threads within one `run`.
unsafe impl<T: Send> Sync for SendPtr<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::quantize_bytes;
    use crate::quant::testutil::Rng;

    fn reference(w: &Weights<'_>, x: &[f32], n: usize) -> Vec<f32> {
        let mut out = vec![0.0; n * w.rows()];
        let mut row = vec![0.0; w.cols()];
        for r in 0..w.rows() {
            w.dequantize_row(r, &mut row).expect("row");
            for t in 0..n {
                out[t * w.rows() + r] =
                    row.iter().zip(&x[t * w.cols()..]).map(|(a, b)| a * b).sum();
            }
        }
        out
    }

    #[test]
    fn matmul_many_matches_reference_for_decode_and_prefill() {
        let pool = ThreadPool::new(3).expect("pool");
        let mut rng = Rng::new(5);
        let k = 256;
        let specs = [
            (DType::Q4_1, 200),
            (DType::Q8_0, 37),
            (DType::Q8_0, 48),
            (DType::F16, 64),
            (DType::Q6_K, 48),
            (DType::Q5_1, 24),
            (DType::Q5_K, 16),
        ];
        let data: Vec<Vec<u8>> = specs
            .iter()
            .map(|&(d, rows)| {
                let x = rng.uniform_vec(rows * k, 1.0);
                match d {
                    DType::Q6_K => crate::quant::block_bytes(
                        &x.chunks(256)
                            .map(<crate::quant::BlockQ6K as crate::quant::Quantize>::quantize)
                            .collect::<Vec<_>>(),
                    )
                    .to_vec(),
                    _ => quantize_bytes(d, &x).expect("q"),
                }
            })
            .collect();
        // The interleaved copies (where the format has one) run in the same call.
        let packed: Vec<Option<repack::PackedBytes>> = specs
            .iter()
            .zip(&data)
            .map(|(&(d, rows), b)| repack::repack_x8(d, rows, k, b).ok())
            .collect();
        for isa in Isa::under_test() {
            let mut scratch = MatmulScratch::with_isa(isa);
            for n in [1, 3, 70, 130] {
                let x = rng.uniform_vec(n * k, 1.0);
                let mut ws: Vec<Weights<'_>> = specs
                    .iter()
                    .zip(&data)
                    .map(|(&(d, rows), b)| Weights::new(d, rows, k, b).expect("w"))
                    .collect();
                for ((&(d, rows), _), p) in specs.iter().zip(&data).zip(&packed) {
                    if let Some(p) = p {
                        ws.push(Weights::x8(d, rows, k, p.as_slice()).expect("x8"));
                    }
                }
                let mut outs: Vec<Vec<f32>> =
                    ws.iter().map(|w| vec![f32::NAN; n * w.rows()]).collect();
                let mut jobs: Vec<MatmulJob<'_, '_>> = ws
                    .iter()
                    .zip(outs.iter_mut())
                    .map(|(w, o)| MatmulJob { w: *w, out: o })
                    .collect();
                for part in jobs.chunks_mut(MAX_JOBS) {
                    matmul_many(&pool, part, &x, n, &mut scratch).expect("matmul");
                }
                drop(jobs);
                for (w, o) in ws.iter().zip(&outs) {
                    let want = reference(w, &x, n);
                    let mag = want.iter().fold(0f32, |m, v| m.max(v.abs()));
                    for (i, (a, b)) in want.iter().zip(o).enumerate() {
                        let tol = if w.dtype().is_quantized() {
                            0.02 * mag
                        } else {
                            1e-4 * mag
                        };
                        assert!(
                            (a - b).abs() <= tol,
                            "{isa:?} {:?} n={n} i={i}: {a} vs {b}",
                            w.dtype()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn interleaved_rows_dequantize_like_the_original() {
        let x = Rng::new(8).uniform_vec(16 * 64, 1.0);
        let bytes = quantize_bytes(DType::Q4_1, &x).expect("q");
        let w = Weights::new(DType::Q4_1, 16, 64, &bytes).expect("w");
        let packed = crate::repack::repack_x8(DType::Q4_1, 16, 64, &bytes).expect("repack");
        let p = Weights::x8(DType::Q4_1, 16, 64, packed.as_slice()).expect("x8");
        let (mut a, mut b) = (vec![0.0; 64], vec![0.0; 64]);
        for r in 0..16 {
            w.dequantize_row(r, &mut a).expect("row");
            p.dequantize_row(r, &mut b).expect("row");
            assert_eq!(a, b);
        }
    }

    #[test]
    fn bad_shapes_are_errors() {
        let pool = ThreadPool::new(1).expect("pool");
        let bytes = vec![0u8; 20 * 4];
        assert!(Weights::new(DType::Q4_1, 4, 33, &bytes).is_err());
        assert!(Weights::new(DType::Q4_1, 3, 32, &bytes).is_err());
        let w = Weights::new(DType::Q4_1, 4, 32, &bytes).expect("w");
        let mut out = vec![0.0; 4];
        let mut s = MatmulScratch::new();
        assert!(matmul(&pool, &w, &[0.0; 31], 1, &mut out, &mut s).is_err());
        assert!(matmul(&pool, &w, &[0.0; 32], 1, &mut out[..3], &mut s).is_err());
        assert!(matmul(&pool, &w, &[0.0; 32], 1, &mut out, &mut s).is_ok());
    }
}
