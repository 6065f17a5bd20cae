#!/usr/bin/env python3
"""Writes VoiceBench-layout parquet files with Hugging Face `datasets` itself (the library that
wrote the published hlt-lab/voicebench files), so the reader is tested against that writer and
not only against our own. Audio: short tones, WAV at 22050 / 48000 / 16000 Hz and one FLAC, so
the test can check decoding and the rate without speech.

    python3 -m venv /tmp/hf && /tmp/hf/bin/pip install datasets pyarrow soundfile
    /tmp/hf/bin/python voicebench/tests/data/hf-written/make.py voicebench/tests/data/hf-written

Written with datasets 5.2.0 / pyarrow 26.0.1. `datasets` stores the audio column uncompressed
and the text columns with snappy; one copy of openbookqa is rewritten with zstd (pyarrow), the
codec other exporters use.
"""
import io
import math
import os
import struct
import sys
import wave

import pyarrow.parquet as pq
import soundfile
from datasets import Audio, Dataset


def tone(rate, ms, freq=440.0):
    n = rate * ms // 1000
    return [0.25 * math.sin(2 * math.pi * freq * i / rate) for i in range(n)]


def wav(rate, ms):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(32767 * s)) for s in tone(rate, ms)))
    return buf.getvalue()


def flac(rate, ms):
    buf = io.BytesIO()
    soundfile.write(buf, tone(rate, ms), rate, format="FLAC")
    return buf.getvalue()


def write(out, subset, split, columns):
    ds = Dataset.from_dict(columns).cast_column("audio", Audio())
    os.makedirs(os.path.join(out, subset), exist_ok=True)
    path = os.path.join(out, subset, f"{split}-00000-of-00001.parquet")
    ds.to_parquet(path)
    return path


def main(out):
    obqa = write(out, "openbookqa", "test", {
        "audio": [{"bytes": wav(22050, 100), "path": "0.wav"},
                  {"bytes": wav(48000, 50), "path": None},
                  {"bytes": flac(16000, 120), "path": "2.flac"}],
        "prompt": ["Which of these is a mammal? A. shark B. whale C. trout D. eel",
                   "What gives plants energy? A. soil B. rocks C. sunlight D. wind",
                   "Which is a liquid at room temperature? A. iron B. water C. salt D. wood"],
        "reference": ["B", "C", "B"],
    })
    zstd_dir = os.path.join(out, "zstd", "openbookqa")
    os.makedirs(zstd_dir, exist_ok=True)
    pq.write_table(pq.read_table(obqa), os.path.join(zstd_dir, "test-00000-of-00001.parquet"),
                   compression="zstd")
    write(out, "ifeval", "test", {
        "audio": [{"bytes": wav(16000, 60), "path": "1000.wav"}] * 2,
        "prompt": ["Write exactly 3 paragraphs about tea.",
                   "Answer in lowercase letters only, with no commas."],
        "key": [1000, 1001],
        "instruction_id_list": [["length_constraints:number_paragraphs"],
                                ["change_case:english_lowercase", "punctuation:no_comma"]],
        "kwargs": [[{"num_paragraphs": 3}], [{}, {}]],
    })
    write(out, "sd-qa", "usa", {
        "audio": [{"bytes": wav(16000, 60), "path": "q.wav"}],
        "prompt": ["Who wrote the novel Moby Dick?"],
        "reference": ["Herman Melville"],
    })
    write(out, "bbh", "test", {
        "audio": [{"bytes": wav(16000, 60), "path": "b.wav"}],
        "prompt": ["not ( True ) and ( True ) is"],
        "reference": ["False"],
        "id": ["boolean_expressions"],
    })


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
