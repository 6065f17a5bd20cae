#!/usr/bin/env python3
"""Speaks "FIRST REST" as one sentence and says where, in its audio, FIRST ends: the
synthesizer's own timing, not a guess from lengths. Usage:
speak_split.py VOICE FIRST REST OUT.wav  ->  prints the boundary in seconds from OUT's start.

VOICE is flite-<name> or espeak-<variant> (bench/lib/speak.sh's names). OUT.wav is the
voice's own output (its rate, its leading and trailing silence).
- flite: `-psdur` prints every phone with its end time; FIRST ends where its last phone does
  (its phones counted by `-ps` on FIRST alone).
- espeak-ng: the library's word events (through ctypes, as the command line does not print
  them) give each word's start in the audio; FIRST ends where REST's first word starts."""

import ctypes
import subprocess
import sys
import wave


def flite_split(voice, first, rest, out):
    timed = subprocess.run(
        ["flite", "-voice", voice, "-psdur", "-t", f"{first} {rest}", "-o", out],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    alone = subprocess.run(
        ["flite", "-voice", voice, "-ps", "-t", first, "none"],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    n = sum(1 for p in alone if p != "pau")
    phones = [(p.rsplit(":", 1)[0], float(p.rsplit(":", 1)[1])) for p in timed if ":" in p]
    seen = 0
    for name, end in phones:
        if name != "pau":
            seen += 1
            if seen == n:
                return end
    sys.exit(f"flite {voice}: FIRST has {n} phones, the sentence only {seen}")


class Event(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", ctypes.c_char * 8),
    ]


WORD, LIST_TERMINATED = 1, 0
SYNCHRONOUS = 2
CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int,
                            ctypes.POINTER(Event))


def espeak_split(voice, first, rest, out):
    lib = ctypes.CDLL("libespeak-ng.so.1")
    rate = lib.espeak_Initialize(SYNCHRONOUS, 0, None, 0)
    if rate <= 0:
        sys.exit("espeak-ng: initialisation failed")
    if lib.espeak_SetVoiceByName(voice.encode()) != 0:
        sys.exit(f"espeak-ng: no voice {voice}")
    samples, words = [], []

    def on_audio(wav, n, events):
        if wav and n > 0:
            samples.extend(wav[:n])
        i = 0
        while events[i].type != LIST_TERMINATED:
            if events[i].type == WORD:
                # text_position counts characters from 1; the sample is where the word starts.
                words.append((events[i].text_position - 1, events[i].sample))
            i += 1
        return 0

    keep = CALLBACK(on_audio)
    lib.espeak_SetSynthCallback(keep)
    text = f"{first} {rest}".encode()
    lib.espeak_Synth(text, len(text) + 1, 0, 1, 0, 0, None, None)
    lib.espeak_Synchronize()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((ctypes.c_short * len(samples))(*samples))
    second = len(first) + 1
    starts = [s for pos, s in words if pos >= second]
    if not starts:
        sys.exit(f"espeak-ng {voice}: no word event after character {second}")
    return starts[0] / rate


def main():
    voice, first, rest, out = sys.argv[1:5]
    if voice.startswith("flite-"):
        at = flite_split(voice[len("flite-"):], first, rest, out)
    elif voice.startswith("espeak-"):
        at = espeak_split(voice[len("espeak-"):], first, rest, out)
    else:
        sys.exit(f"unknown voice {voice}")
    print(f"{at:.4f}")


if __name__ == "__main__":
    main()
