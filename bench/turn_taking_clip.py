#!/usr/bin/env python3
"""Inserts a pause into a synthesized sentence at a phrase boundary, keeping the sentence's own
(mid-sentence) prosody: a clip of the first phrase alone would end in a final fall and sound
complete. Usage: turn_taking_clip.py SENTENCE.wav FIRST_PHRASE.wav PAUSE_MS OUT.wav

Both inputs are the same voice, 16 kHz mono 16-bit, trimmed of silence. The first phrase's
length says roughly where the boundary lies in the sentence; the quietest 10 ms frame from
250 ms before to 100 ms after that point is where the pause goes (a word gap). OUT gets 0.3 s
of silence before, the pause inside and 0.6 s after. Prints the cut in ms."""

import array
import sys
import wave

RATE = 16000
FRAME = 160


def read(path):
    with wave.open(path) as w:
        assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2
        return array.array("h", w.readframes(w.getnframes()))


def main():
    sentence, first = read(sys.argv[1]), read(sys.argv[2])
    pause_ms, out = int(sys.argv[3]), sys.argv[4]
    guess = len(first) // FRAME
    lo, hi = max(1, guess - 25), min(len(sentence) // FRAME - 1, guess + 10)

    def energy(k):
        return sum(s * s for s in sentence[k * FRAME : (k + 1) * FRAME])

    cut = min(range(lo, hi + 1), key=energy) * FRAME + FRAME // 2
    silence = lambda ms: array.array("h", bytes(2 * RATE * ms // 1000))
    clip = silence(300) + sentence[:cut] + silence(pause_ms) + sentence[cut:] + silence(600)
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(clip.tobytes())
    print(cut * 1000 // RATE)


if __name__ == "__main__":
    main()
