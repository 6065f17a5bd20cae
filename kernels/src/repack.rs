//! Interleaved ("x8") weight layouts: 8 consecutive rows stored block by block, so one SIMD
//! register holds the same 4 input positions of 8 rows and integer dot products produce one
//! lane per output row (no horizontal sums, one scale multiply per 8 rows). Built once at
//! model load from GGML's row-major blocks; same byte size as the original.
//!
//! A group block covers one 32-column block of 8 rows. First come the block headers, one
//! field at a time for rows 0..8 (Q4_0 and Q8_0: `d: [f16; 8]`; Q4_1: `d` then
//! `m: [f16; 8]`; Q5_0: `d` then `qh: [[u8; 4]; 8]`; Q5_1: `d`, `m`, `qh`), then the quant
//! bytes in chunks of 32:
//! chunk `u` holds bytes `4u .. 4u+4` of each row's quants, row `r` at `4r .. 4r+4`. For the
//! 4-bit formats (16 quant bytes) the low nibbles of chunk `u` are elements `4u..4u+4` and
//! the high nibbles elements `16+4u..16+4u+4`; for Q8_0 (32 quant bytes) chunk `u` is
//! elements `4u..4u+4`.
//!
//! Q5_0's (and Q5_1's) fifth bits are also reordered, within each row's own 4 `qh` bytes, so that they line
//! up with the quant chunks: bit `s` of byte `e` is the fifth bit of element `4s + e` (GGML:
//! bit `4s + e` of the little-endian word). Chunk `u`'s low nibbles then take their fifth
//! bits from bit `u` of the same byte position, its high nibbles from bit `4 + u`: one shift
//! and mask per 8 rows.
//!
//! Q4_K (256-column super-blocks, 1152-byte group blocks): `d: [f16; 8]`, `dmin: [f16; 8]`,
//! then the 6-bit sub-block scales and mins of the 8 rows as three 32-byte planes, byte
//! `8s + r` for sub-block pair `(s, 4 + s)` of row `r`: `L` = low nibbles of `sc[s]` |
//! `sc[4+s]` << 4, `M` the same for the mins, `H` = the 2 high bits of `sc[s]`, `sc[4+s]`,
//! `m[s]`, `m[4+s]` at bits 0, 2, 4, 6. A few shifts and masks give every scale of the group
//! as a byte. Then the 128 quant bytes in 32 chunks as above (chunk `u`: bytes `4u..4u+4`, so
//! chunks `8p .. 8p+8` are sub-blocks `2p` (low nibbles) and `2p+1` (high nibbles)).
//!
//! Q5_K (1408-byte group blocks): Q4_K's headers and scale planes, then the rows' 32 `qh`
//! bytes in 8 chunks, then the 128 quant bytes in 32 chunks, all chunked as above. Quant
//! chunk `8p + v` (sub-blocks `2p`, `2p+1`, columns `4v..4v+4`) takes its fifth bits from
//! `qh` chunk `v`: bit `2p` for the low nibbles, bit `2p + 1` for the high ones.
//!
//! Q6_K (1680-byte group blocks): `d: [f16; 8]`, the 16 signed 8-bit sub-block scales as
//! `[[i8; 8]; 16]` (sub-block `s`, row `r` at `8s + r`), then per 128-element half `n` the
//! rows' 64 `ql` bytes in 16 chunks and their 32 `qh` bytes in 8 chunks (chunks as above).
//! For columns `l = 4u .. 4u+4` of half `n` (element `128n + 32j + l`, `j` = 0..4): `ql`
//! chunk `u` has `j` = 0 in its low and `j` = 2 in its high nibbles, `ql` chunk `8 + u` has
//! `j` = 1 and 3, and `qh` chunk `u` the top 2 bits of all four at bits `2j`.
//!
//! Everything is a permutation of the original bits: nothing is lost and the size is
//! unchanged.

use std::sync::Arc;

use crate::quant::{
    BlockQ4_0, BlockQ4_1, BlockQ4K, BlockQ5_0, BlockQ5_1, BlockQ5K, BlockQ6K, BlockQ8_0, QuantBlock,
};
use crate::{DType, KernelError};

/// Rows per interleaved group.
pub const GROUP: usize = 8;

/// How a weight matrix's bytes are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// GGML's layout: each row a run of blocks (as stored in GGUF files).
    Rows,
    /// Interleaved groups of 8 rows (see the module docs); `rows % 8 == 0`.
    X8,
}

/// Whether `dtype` has an interleaved layout (and kernels for it).
pub const fn has_x8(dtype: DType) -> bool {
    header_fields(dtype).is_some()
}

/// Byte widths of the header fields before the quants, for formats with an x8 layout.
const fn header_fields(dtype: DType) -> Option<&'static [usize]> {
    match dtype {
        DType::Q4_0 | DType::Q8_0 => Some(&[2]),
        DType::Q4_1 => Some(&[2, 2]),
        DType::Q5_0 => Some(&[2, 4]),
        DType::Q5_1 => Some(&[2, 2, 4]),
        // Q5_K's `qh` bytes are chunked like quants.
        DType::Q4_K | DType::Q5_K => Some(&[2, 2, 12]),
        // Its own piece map (`q6k_pieces`).
        DType::Q6_K => Some(&[]),
        _ => None,
    }
}

/// Whether `dtype` has Q4_K's 12-byte scale field at byte 4 (its x8 blocks: the scale
/// planes at 32..128).
const fn has_k_scales(dtype: DType) -> bool {
    matches!(dtype, DType::Q4_K | DType::Q5_K)
}

/// Q4_K: the 8 rows' GGML scale fields, as the plain copy left them (row `r` at `12r`), to
/// the x8 planes `L`, `M`, `H` (see the module docs), in place.
fn q4k_scales_to_x8(region: &mut [u8]) {
    let mut rows = [[0u8; 12]; GROUP];
    for (r, row) in rows.iter_mut().enumerate() {
        row.copy_from_slice(&region[12 * r..12 * r + 12]);
    }
    for (r, row) in rows.iter().enumerate() {
        let (sc, m) = BlockQ4K::unpack_scales(row);
        for s in 0..4 {
            region[8 * s + r] = (sc[s] & 15) | (sc[4 + s] & 15) << 4;
            region[32 + 8 * s + r] = (m[s] & 15) | (m[4 + s] & 15) << 4;
            region[64 + 8 * s + r] =
                (sc[s] >> 4) | (sc[4 + s] >> 4) << 2 | (m[s] >> 4) << 4 | (m[4 + s] >> 4) << 6;
        }
    }
}

/// Row `r`'s GGML scale field out of the x8 planes of a Q4_K group block's scale region.
fn q4k_scales_from_x8(region: &[u8], r: usize) -> [u8; 12] {
    let (mut sc, mut m) = ([0u8; 8], [0u8; 8]);
    for s in 0..4 {
        let (l, mm, h) = (
            region[8 * s + r],
            region[32 + 8 * s + r],
            region[64 + 8 * s + r],
        );
        sc[s] = (l & 15) | (h & 3) << 4;
        sc[4 + s] = (l >> 4) | ((h >> 2) & 3) << 4;
        m[s] = (mm & 15) | ((h >> 4) & 3) << 4;
        m[4 + s] = (mm >> 4) | (h >> 6) << 4;
    }
    BlockQ4K::pack_scales(&sc, &m)
}

/// Offset of the 4 fifth-bit bytes (`qh`) in a GGML block of `dtype`, for formats that have
/// them; in the x8 layout they are reordered by [`spread_qh`].
const fn qh_offset(dtype: DType) -> Option<usize> {
    match dtype {
        DType::Q5_0 => Some(2),
        DType::Q5_1 => Some(4),
        _ => None,
    }
}

/// GGML's `qh` word (bit `j`: fifth bit of element `j`) to the x8 order: bit `s` of byte `e`
/// is bit `4s + e` of the word.
pub(crate) fn spread_qh(qh: [u8; 4]) -> [u8; 4] {
    let w = u32::from_le_bytes(qh);
    let mut out = [0u8; 4];
    for (e, o) in out.iter_mut().enumerate() {
        for s in 0..8 {
            *o |= (((w >> (4 * s + e)) & 1) as u8) << s;
        }
    }
    out
}

/// The inverse of [`spread_qh`].
pub(crate) fn gather_qh(bytes: [u8; 4]) -> [u8; 4] {
    let mut w = 0u32;
    for (e, &b) in bytes.iter().enumerate() {
        for s in 0..8 {
            w |= u32::from((b >> s) & 1) << (4 * s + e);
        }
    }
    w.to_le_bytes()
}

/// The bytes of one repacked matrix: a 64-byte-aligned range of a [`Slab`], shared with the
/// other matrices carved from it by a [`PackedArena`].
pub struct PackedBytes {
    slab: Arc<Slab>,
    off: usize,
    len: usize,
}

impl PackedBytes {
    /// A zeroed matrix in its own allocation.
    fn zeroed(len: usize) -> PackedBytes {
        PackedArena::with_slab_size(0).alloc(len)
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `off..off + len` lies inside the slab and was zeroed when carved.
        unsafe { std::slice::from_raw_parts(self.slab.ptr.as_ptr().add(self.off), self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above; ranges carved from one slab never overlap, and `&mut self` is
        // the only handle to this range.
        unsafe { std::slice::from_raw_parts_mut(self.slab.ptr.as_ptr().add(self.off), self.len) }
    }
}

/// One large allocation that matrices are carved from.
struct Slab {
    ptr: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
}

// SAFETY: the slab is plain memory; `PackedBytes` hand out disjoint ranges of it.
unsafe impl Send for Slab {}
unsafe impl Sync for Slab {}

impl Slab {
    fn new(size: usize) -> Slab {
        let align = if size >= HUGE_PAGE { HUGE_PAGE } else { 64 };
        let layout = std::alloc::Layout::from_size_align(size.max(64).next_multiple_of(64), align)
            .unwrap_or_else(|_| std::alloc::handle_alloc_error(std::alloc::Layout::new::<u8>()));
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = std::ptr::NonNull::new(ptr) else {
            std::alloc::handle_alloc_error(layout)
        };
        // Before the first write, so the pages are born huge.
        advise_huge_pages(ptr.as_ptr(), layout.size());
        Slab { ptr, layout }
    }
}

impl Drop for Slab {
    fn drop(&mut self) {
        // SAFETY: allocated in `Slab::new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// Hands out zeroed, 64-byte-aligned [`PackedBytes`] from large slabs, so a model's many
/// small matrices (most under 2 MiB each) share transparent huge pages: a decode step
/// streams every weight once, and with 4 KiB pages each 4 KiB of weights costs a TLB miss.
/// Pages are touched only as matrices are carved, so unused slab space stays unresident
/// (at most one partly used huge page per slab).
pub struct PackedArena {
    slab_size: usize,
    cur: Option<Arc<Slab>>,
    used: usize,
}

impl Default for PackedArena {
    fn default() -> Self {
        PackedArena::new()
    }
}

impl PackedArena {
    pub fn new() -> PackedArena {
        PackedArena::with_slab_size(SLAB)
    }

    /// An arena whose slabs hold at least `slab_size` bytes (0: one slab per matrix).
    fn with_slab_size(slab_size: usize) -> PackedArena {
        PackedArena {
            slab_size,
            cur: None,
            used: 0,
        }
    }

    /// `len` bytes written by `fill` (e.g. read from a file), 64-byte aligned.
    pub fn alloc_with<E>(
        &mut self,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<(), E>,
    ) -> Result<PackedBytes, E> {
        let mut bytes = self.alloc(len);
        fill(bytes.as_mut_slice())?;
        Ok(bytes)
    }

    /// `len` zeroed bytes.
    pub fn alloc(&mut self, len: usize) -> PackedBytes {
        let off = self.used.next_multiple_of(64);
        let slab = match &self.cur {
            Some(s) if off + len <= s.layout.size() => {
                self.used = off + len;
                Arc::clone(s)
            }
            _ => {
                let s = Arc::new(Slab::new(len.max(self.slab_size)));
                self.cur = Some(Arc::clone(&s));
                self.used = len;
                s
            }
        };
        let off = self.used - len;
        // SAFETY: `off..off + len` lies inside the slab and no other handle covers it.
        unsafe { std::ptr::write_bytes(slab.ptr.as_ptr().add(off), 0, len) };
        PackedBytes { slab, off, len }
    }
}

/// Bytes per slab of a [`PackedArena`].
const SLAB: usize = 64 << 20;

/// Size (and alignment) of a transparent huge page on x86-64 and most aarch64 kernels.
const HUGE_PAGE: usize = 2 << 20;

/// Asks Linux to back `len` bytes at `p` with transparent huge pages where 2 MiB-aligned
/// ranges fit. A hint: ignored where unsupported.
#[cfg(target_os = "linux")]
fn advise_huge_pages(p: *mut u8, len: usize) {
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    const MADV_HUGEPAGE: i32 = 14;
    const PAGE: usize = 4096;
    if len < HUGE_PAGE {
        return;
    }
    let start = (p as usize).next_multiple_of(PAGE);
    let end = (p as usize + len) & !(PAGE - 1);
    if end > start {
        // SAFETY: the range lies inside an allocation this process owns; madvise only
        // changes how its (not yet touched) pages are backed, never their contents.
        unsafe {
            madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_p: *mut u8, _len: usize) {}

impl std::fmt::Debug for PackedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PackedBytes({} bytes)", self.len)
    }
}

/// Repacks a row-major `rows x cols` matrix of `dtype` into the x8 layout.
pub fn repack_x8(
    dtype: DType,
    rows: usize,
    cols: usize,
    data: &[u8],
) -> Result<PackedBytes, KernelError> {
    let (fields, expected) = x8_layout(dtype, rows, cols)?;
    if data.len() != expected {
        return Err(KernelError::WeightSize {
            dtype,
            rows,
            cols,
            expected,
            actual: data.len(),
        });
    }
    let mut out = PackedBytes::zeroed(expected);
    pack_groups(fields, dtype, cols, data, 0, out.as_mut_slice());
    Ok(out)
}

/// Repacks a `rows x cols` matrix of `dtype` whose row-major bytes are read piecewise by
/// `read(byte_offset, buf)` (e.g. `pread` from a file), a few hundred rows at a time, so
/// the original never needs to be in memory as a whole.
pub fn repack_x8_from(
    dtype: DType,
    rows: usize,
    cols: usize,
    read: impl FnMut(u64, &mut [u8]) -> std::io::Result<()>,
) -> Result<PackedBytes, KernelError> {
    repack_x8_from_in(&mut PackedArena::with_slab_size(0), dtype, rows, cols, read)
}

/// [`repack_x8_from`] into memory carved from `arena` (a model's matrices share its slabs).
pub fn repack_x8_from_in(
    arena: &mut PackedArena,
    dtype: DType,
    rows: usize,
    cols: usize,
    mut read: impl FnMut(u64, &mut [u8]) -> std::io::Result<()>,
) -> Result<PackedBytes, KernelError> {
    let (fields, expected) = x8_layout(dtype, rows, cols)?;
    let mut out = arena.alloc(expected);
    let row_bytes = dtype.block_bytes() * (cols / dtype.block_len());
    let groups_per_read = (256 * 1024 / (GROUP * row_bytes).max(1)).max(1);
    let mut buf = vec![0u8; groups_per_read * GROUP * row_bytes];
    let dst = out.as_mut_slice();
    let n_groups = rows / GROUP;
    let mut g0 = 0;
    while g0 < n_groups {
        let ng = groups_per_read.min(n_groups - g0);
        let chunk = &mut buf[..ng * GROUP * row_bytes];
        read((g0 * GROUP * row_bytes) as u64, chunk).map_err(KernelError::Io)?;
        pack_groups(fields, dtype, cols, chunk, g0, dst);
        g0 += ng;
    }
    Ok(out)
}

/// The header field widths of `dtype`'s x8 layout and the matrix's size in bytes, or why a
/// `rows x cols` matrix of it cannot be repacked.
fn x8_layout(
    dtype: DType,
    rows: usize,
    cols: usize,
) -> Result<(&'static [usize], usize), KernelError> {
    let Some(fields) = header_fields(dtype).filter(|_| rows.is_multiple_of(GROUP)) else {
        return Err(KernelError::Unsupported(dtype));
    };
    let expected = dtype
        .matrix_bytes(rows, cols)
        .ok_or(KernelError::RaggedRow {
            dtype,
            block: dtype.block_len(),
            cols,
        })?;
    Ok((fields, expected))
}

/// Interleaves `src` (whole groups of `GROUP` row-major rows, starting at group `first`) into
/// their place in the repacked matrix `dst`.
fn pack_groups(
    fields: &[usize],
    dtype: DType,
    cols: usize,
    src: &[u8],
    first: usize,
    dst: &mut [u8],
) {
    let (bb, nb) = (dtype.block_bytes(), cols / dtype.block_len());
    let row_bytes = nb * bb;
    for gi in 0..src.len() / (GROUP * row_bytes).max(1) {
        let g = first + gi;
        for b in 0..nb {
            let o = &mut dst[(g * nb + b) * GROUP * bb..][..GROUP * bb];
            for r in 0..GROUP {
                let row = &src[(gi * GROUP + r) * row_bytes + b * bb..][..bb];
                for_each_piece(fields, bb, r, |from, to, len| {
                    o[to..to + len].copy_from_slice(&row[from..from + len]);
                    if Some(from) == qh_offset(dtype) {
                        let q: [u8; 4] = o[to..to + 4].try_into().unwrap_or_default();
                        o[to..to + 4].copy_from_slice(&spread_qh(q));
                    }
                });
            }
            if has_k_scales(dtype) {
                q4k_scales_to_x8(&mut o[32..128]);
            }
        }
    }
}

/// Calls `f(offset in the GGML block, offset in the group block, length)` for every piece of
/// row `r`'s block.
fn for_each_piece(fields: &[usize], bb: usize, r: usize, mut f: impl FnMut(usize, usize, usize)) {
    if bb == Q6K_BYTES {
        return q6k_pieces(r, f);
    }
    let (mut from, mut to) = (0, 0);
    for &w in fields {
        f(from, to + r * w, w);
        from += w;
        to += GROUP * w;
    }
    for u in 0..(bb - from) / 4 {
        f(from + 4 * u, to + 32 * u + 4 * r, 4);
    }
}

/// Bytes of a GGML Q6_K block.
const Q6K_BYTES: usize = 210;

/// Q6_K's pieces (see the module docs): GGML keeps `ql[128]`, `qh[64]`, `scales[16]`, `d`.
fn q6k_pieces(r: usize, mut f: impl FnMut(usize, usize, usize)) {
    f(208, 2 * r, 2);
    for s in 0..16 {
        f(192 + s, 16 + 8 * s + r, 1);
    }
    for n in 0..2 {
        let half = 144 + 768 * n;
        for c in 0..16 {
            f(64 * n + 4 * c, half + 32 * c + 4 * r, 4);
        }
        for c in 0..8 {
            f(128 + 32 * n + 4 * c, half + 512 + 32 * c + 4 * r, 4);
        }
    }
}

/// Row `r`'s block (GGML bytes) out of a group block.
fn unpack_block(dtype: DType, group_block: &[u8], r: usize, out: &mut [u8]) {
    if let Some(fields) = header_fields(dtype) {
        for_each_piece(fields, dtype.block_bytes(), r, |from, to, len| {
            out[from..from + len].copy_from_slice(&group_block[to..to + len]);
            if Some(from) == qh_offset(dtype) {
                let q: [u8; 4] = out[from..from + 4].try_into().unwrap_or_default();
                out[from..from + 4].copy_from_slice(&gather_qh(q));
            }
        });
        if has_k_scales(dtype) {
            out[4..16].copy_from_slice(&q4k_scales_from_x8(&group_block[32..128], r));
        }
    }
}

/// Row `r` of an x8 matrix as f32 (embedding lookups), without allocating.
pub(crate) fn dequantize_row_x8(dtype: DType, cols: usize, data: &[u8], r: usize, out: &mut [f32]) {
    fn blocks<B: QuantBlock>(dtype: DType, data: &[u8], nb: usize, r: usize, out: &mut [f32]) {
        let bb = dtype.block_bytes();
        let (g, rr) = (r / GROUP, r % GROUP);
        let mut raw = [0u8; 256];
        for (b, o) in out.chunks_exact_mut(B::LEN).enumerate().take(nb) {
            let gb = &data[(g * nb + b) * GROUP * bb..][..GROUP * bb];
            unpack_block(dtype, gb, rr, &mut raw[..bb]);
            // SAFETY: `raw` holds a whole block; every bit pattern is a valid block.
            let blk: B = unsafe { std::ptr::read_unaligned(raw.as_ptr().cast::<B>()) };
            blk.dequantize(o);
        }
    }
    match dtype {
        DType::Q4_0 => blocks::<BlockQ4_0>(dtype, data, cols / 32, r, out),
        DType::Q4_1 => blocks::<BlockQ4_1>(dtype, data, cols / 32, r, out),
        DType::Q5_0 => blocks::<BlockQ5_0>(dtype, data, cols / 32, r, out),
        DType::Q5_1 => blocks::<BlockQ5_1>(dtype, data, cols / 32, r, out),
        DType::Q5_K => blocks::<BlockQ5K>(dtype, data, cols / 256, r, out),
        DType::Q8_0 => blocks::<BlockQ8_0>(dtype, data, cols / 32, r, out),
        DType::Q4_K => blocks::<BlockQ4K>(dtype, data, cols / 256, r, out),
        DType::Q6_K => blocks::<BlockQ6K>(dtype, data, cols / 256, r, out),
        _ => debug_assert!(false, "{dtype:?} has no x8 layout"),
    }
}

/// Row `r` of an x8 matrix back in GGML's row-major bytes.
pub(crate) fn unpack_row_x8(dtype: DType, cols: usize, data: &[u8], r: usize, out: &mut [u8]) {
    let (bb, nb) = (dtype.block_bytes(), cols / dtype.block_len());
    let (g, rr) = (r / GROUP, r % GROUP);
    for b in 0..nb {
        let gb = &data[(g * nb + b) * GROUP * bb..][..GROUP * bb];
        unpack_block(dtype, gb, rr, &mut out[b * bb..(b + 1) * bb]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repack_round_trips_and_places_quants_in_chunks() {
        for dtype in [
            DType::Q4_0,
            DType::Q4_1,
            DType::Q5_0,
            DType::Q5_1,
            DType::Q8_0,
            DType::Q4_K,
            DType::Q5_K,
        ] {
            let (rows, cols) = (16, 2 * dtype.block_len());
            let bytes: Vec<u8> = (0..dtype.matrix_bytes(rows, cols).expect("size"))
                .map(|i| (i * 7 + 3) as u8)
                .collect();
            let p = repack_x8(dtype, rows, cols, &bytes).expect("repack");
            let rb = bytes.len() / rows;
            let mut row = vec![0u8; rb];
            for r in 0..rows {
                unpack_row_x8(dtype, cols, p.as_slice(), r, &mut row);
                assert_eq!(row, bytes[r * rb..(r + 1) * rb], "{dtype:?} row {r}");
            }
            // Row 3, block 0: its quant bytes 4..8 sit in chunk 1 at 4*3.
            let bb = dtype.block_bytes();
            let header: usize = header_fields(dtype).expect("x8").iter().sum();
            let chunk1 = 8 * header + 32;
            assert_eq!(
                p.as_slice()[chunk1 + 12..chunk1 + 16],
                bytes[3 * rb + header + 4..3 * rb + header + 8]
            );
            let _ = bb;
            if let Some(at) = qh_offset(dtype) {
                // Row 3's fifth bits, reordered: byte e, bit s = element 4s + e.
                let qh =
                    u32::from_le_bytes(bytes[3 * rb + at..3 * rb + at + 4].try_into().expect("4"));
                let x8 = &p.as_slice()[8 * at + 12..8 * at + 16];
                for j in 0..32 {
                    assert_eq!(
                        (qh >> j) & 1,
                        u32::from((x8[j % 4] >> (j / 4)) & 1),
                        "bit {j}"
                    );
                }
            }
        }
        // Q6_K: its own piece map round-trips too.
        let q6: Vec<u8> = (0..DType::Q6_K.matrix_bytes(16, 512).expect("size"))
            .map(|i| (i * 29 + 1) as u8)
            .collect();
        let p = repack_x8(DType::Q6_K, 16, 512, &q6).expect("repack");
        let mut row = vec![0u8; q6.len() / 16];
        for r in 0..16 {
            unpack_row_x8(DType::Q6_K, 512, p.as_slice(), r, &mut row);
            assert_eq!(row, q6[r * row.len()..(r + 1) * row.len()], "Q6_K row {r}");
        }
        // Q4_K: every 6-bit scale and min of a row survives the planes.
        let (sc, m) = (
            [1, 63, 17, 32, 0, 48, 5, 60],
            [62, 0, 33, 16, 47, 1, 31, 63],
        );
        let mut region: Vec<u8> = (0..GROUP)
            .flat_map(|r| BlockQ4K::pack_scales(&sc.map(|v| v ^ r as u8), &m))
            .collect();
        q4k_scales_to_x8(&mut region);
        for r in 0..GROUP {
            let want = BlockQ4K::pack_scales(&sc.map(|v| v ^ r as u8), &m);
            assert_eq!(q4k_scales_from_x8(&region, r), want, "row {r}");
        }
        for w in [0u32, 1, 0x8000_0001, 0xDEAD_BEEF, u32::MAX] {
            assert_eq!(gather_qh(spread_qh(w.to_le_bytes())), w.to_le_bytes());
        }
        assert!(repack_x8(DType::Q4_1, 12, 32, &[0; 240]).is_err());
        // Piecewise reading gives the same bytes.
        let (rows, cols) = (64, 96);
        let bytes: Vec<u8> = (0..DType::Q8_0.matrix_bytes(rows, cols).expect("size"))
            .map(|i| (i * 13) as u8)
            .collect();
        let whole = repack_x8(DType::Q8_0, rows, cols, &bytes).expect("whole");
        let pieces = repack_x8_from(DType::Q8_0, rows, cols, |at, buf| {
            buf.copy_from_slice(&bytes[at as usize..at as usize + buf.len()]);
            Ok(())
        })
        .expect("pieces");
        assert_eq!(whole.as_slice(), pieces.as_slice());
        let mut arena = PackedArena::new();
        let carved = repack_x8_from_in(&mut arena, DType::Q8_0, rows, cols, |at, buf| {
            buf.copy_from_slice(&bytes[at as usize..at as usize + buf.len()]);
            Ok(())
        })
        .expect("carved");
        assert_eq!(whole.as_slice(), carved.as_slice());
    }

    #[test]
    fn arena_carves_aligned_disjoint_zeroed_ranges() {
        let mut arena = PackedArena::with_slab_size(1000);
        let mut parts: Vec<PackedBytes> = [10, 300, 64, 900, 5000, 1]
            .iter()
            .map(|&n| arena.alloc(n))
            .collect();
        for (i, p) in parts.iter_mut().enumerate() {
            assert_eq!(p.as_slice().as_ptr() as usize % 64, 0);
            assert!(p.as_slice().iter().all(|&b| b == 0));
            p.as_mut_slice().fill(i as u8 + 1);
        }
        for (i, p) in parts.iter().enumerate() {
            assert!(p.as_slice().iter().all(|&b| b == i as u8 + 1), "part {i}");
        }
        // The first three share a slab; 900 does not fit after them, 5000 gets its own.
        assert!(Arc::ptr_eq(&parts[0].slab, &parts[2].slab));
        assert!(!Arc::ptr_eq(&parts[2].slab, &parts[3].slab));
        assert!(!Arc::ptr_eq(&parts[3].slab, &parts[4].slab));
        drop(arena);
        assert_eq!(parts[5].as_slice(), [6]);
    }
}
