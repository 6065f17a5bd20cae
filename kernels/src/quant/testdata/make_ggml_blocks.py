#!/usr/bin/env python3
"""Record the bytes GGML's reference K-quant quantizers give, for `quant::ggml_bytes`' tests.

Calls ggml_quantize_chunk (no importance matrix: quantize_row_q4_K_ref, quantize_row_q5_K_ref,
quantize_row_q6_K_ref, as llama-quantize without an imatrix) from libggml-base in LLAMA_BIN
on a few 256-value super-blocks chosen to reach the quantizers' corners (trained-weight-like
values, outliers, one-signed and constant sub-blocks, zeros, scales too small for f16, exact
ties), and writes ggml_k_blocks.txt next to this script: per block a line
`x NAME HEX` (the 256 inputs, f32 little-endian) and one line `FORMAT HEX` per format.

Usage: LLAMA_BIN=/work/peers/build/bin python3 make_ggml_blocks.py
"""
import ctypes
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("LLAMA_BIN", "/work/peers/build/bin")
# ggml_type ids and block bytes.
FORMATS = [("q4_k", 12, 144), ("q5_k", 13, 176), ("q6_k", 14, 210)]


def f32(v):
    """v rounded to f32, as the Rust side reads it back."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def blocks():
    rng = random.Random(20261202)
    gauss = lambda s: [rng.gauss(0.0, s) for _ in range(256)]
    out = []
    for i in range(4):
        out.append((f"gauss{i}", gauss(0.02)))
    spiky = gauss(0.02)
    for i in rng.sample(range(256), 6):
        spiky[i] *= 25.0
    out.append(("outliers", spiky))
    out.append(("uniform", [rng.uniform(-1.0, 1.0) for _ in range(256)]))
    out.append(("positive", [rng.uniform(0.0, 0.5) for _ in range(256)]))
    out.append(("negative", [rng.uniform(-0.5, 0.0) for _ in range(256)]))
    out.append(("zeros", [0.0] * 256))
    # Sub-block s at scale 2^-2s: the small ones' 6-bit scales round to 0.
    out.append(("scales", [rng.gauss(0.0, 1.0) * 2.0 ** (-2 * (i // 32)) for i in range(256)]))
    # Exact multiples of 1/256: ties in every rounding.
    out.append(("ramp", [(i - 128) / 256.0 for i in range(256)]))
    consts = [0.25, -0.25, 0.0, 1.0, -1.0, 0.5, -0.125, 0.0]
    out.append(("constant", [consts[i // 32] for i in range(256)]))
    out.append(("one-sub-block", [rng.gauss(0.0, 0.1) if 96 <= i < 128 else 0.0
                                  for i in range(256)]))
    # d underflows f16 to 0 (levels kept from the search).
    out.append(("tiny", gauss(1e-7)))
    out.append(("large", gauss(300.0)))
    out.append(("mixed-sign-sub-blocks", [abs(v) if (i // 32) % 2 else -abs(v)
                                          for i, v in enumerate(gauss(0.05))]))
    return [(name, [f32(v) for v in x]) for name, x in out]


def main():
    ggml = ctypes.CDLL(os.path.join(BIN, "libggml-base.so"))
    ggml.ggml_quantize_chunk.restype = ctypes.c_size_t
    ggml.ggml_quantize_chunk.argtypes = [
        ctypes.c_int, ctypes.POINTER(ctypes.c_float), ctypes.c_void_p,
        ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_float),
    ]
    lines = [
        "# GGML's reference K-quant bytes (ggml_quantize_chunk, no importance matrix) for",
        "# the inputs on each `x` line; written by make_ggml_blocks.py, read by quant::ggml_bytes.",
    ]
    for name, x in blocks():
        src = (ctypes.c_float * 256)(*x)
        lines.append(f"x {name} " + struct.pack("<256f", *x).hex())
        for fmt, ty, size in FORMATS:
            dst = ctypes.create_string_buffer(size)
            n = ggml.ggml_quantize_chunk(ty, src, dst, 0, 1, 256, None)
            assert n == size, (fmt, n)
            lines.append(f"{fmt} " + dst.raw.hex())
    with open(os.path.join(HERE, "ggml_k_blocks.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
