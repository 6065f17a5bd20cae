"""Prints the reference digests that asr/src/mel_ref.rs commits.

Filterbank: per-filter sum, peak bin and peak value of Whisper's published
`whisper/assets/mel_filters.npz` (openai-whisper sdist). Log-mel: Whisper's
`log_mel_spectrogram` re-done in numpy (reflect pad, periodic Hann, |STFT|^2, filters,
log10 clamp, max-8, (x+4)/4) on jfk.wav; per-bin means and a few single values.

The Rust file is this output after a `//!` line and `#![allow(clippy::excessive_precision)]`.

Run: /work/peers/venv-fw/bin/python bench/asr_mel_reference.py WHISPER_SDIST_DIR JFK_WAV
"""
import sys
import wave

import numpy as np

sdist, wav_path = sys.argv[1], sys.argv[2]
filters = np.load(f"{sdist}/whisper/assets/mel_filters.npz")["mel_80"]
print("pub const FILTER_DIGEST: [(f32, usize, f32); 80] = [")
for row in filters:
    print(f"    ({row.sum():.9e}, {int(row.argmax())}, {row.max():.9e}),")
print("];")

with wave.open(wav_path) as w:
    assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2
    audio = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0
n_fft, hop = 400, 160
x = np.pad(audio, n_fft // 2, mode="reflect")
window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)
n_frames = 1 + (len(x) - n_fft) // hop
frames = np.stack([x[i * hop : i * hop + n_fft] * window for i in range(n_frames)])
power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
mel = filters @ power[:-1].T  # drop the last frame like Whisper
log = np.log10(np.maximum(mel, 1e-10))
log = np.maximum(log, log.max() - 8.0)
log = (log + 4.0) / 4.0
print(f"pub const JFK_FRAMES: usize = {log.shape[1]};")
print("pub const JFK_BIN_MEANS: [f32; 80] = [")
for m in log.mean(axis=1):
    print(f"    {m:.7e},")
print("];")
print("/// (mel bin, frame, value)")
print("pub const JFK_POINTS: [(usize, usize, f32); 6] = [")
for b, t in [(0, 0), (10, 100), (40, 300), (79, 500), (5, 700), (60, 1000)]:
    print(f"    ({b}, {t}, {log[b, t]:.7e}),")
print("];")
