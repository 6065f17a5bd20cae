#!/usr/bin/env python3
"""Inserts a pause into a synthesized sentence at a phrase boundary, keeping the sentence's own
(mid-sentence) prosody: a clip of the first phrase alone would end in a final fall and sound
complete. Usage: turn_taking_clip.py SENTENCE.wav BOUNDARY_S PAUSE_MS OUT.wav

SENTENCE.wav is the voice's output resampled to 16 kHz mono 16-bit, its own silences kept;
BOUNDARY_S is where its first phrase ends, in seconds (bench/speak_split.py: the synthesizer's
own timing, so the pause falls between the right two words). The pause goes at the quietest
10 ms frame within 40 ms of the boundary (the gap between the words, if the voice leaves one).
The sentence is trimmed of its leading and trailing silence; OUT gets 0.3 s of silence before,
the pause inside and 0.6 s after. Prints the cut in ms from the trimmed sentence's start."""

import array
import sys
import wave

RATE = 16000
FRAME = 160
# A sample this loud (0.5% of full scale) is speech, not silence.
QUIET = 164
# How far from the synthesizer's boundary the cut may move to find the gap.
SLACK_FRAMES = 4


def read(path):
    with wave.open(path) as w:
        assert w.getframerate() == RATE and w.getnchannels() == 1 and w.getsampwidth() == 2
        return array.array("h", w.readframes(w.getnframes()))


def main():
    sentence = read(sys.argv[1])
    boundary = int(float(sys.argv[2]) * RATE)
    pause_ms, out = int(sys.argv[3]), sys.argv[4]
    loud = [i for i, s in enumerate(sentence) if abs(s) >= QUIET]
    if not loud:
        sys.exit(f"{sys.argv[1]}: silent")
    first, last = loud[0], loud[-1] + 1
    if not first < boundary < last:
        sys.exit(f"{sys.argv[1]}: boundary {sys.argv[2]} s outside the speech")

    def energy(start):
        return sum(s * s for s in sentence[start : start + FRAME])

    starts = [boundary + k * FRAME - FRAME // 2 for k in range(-SLACK_FRAMES, SLACK_FRAMES + 1)]
    cut = min((s for s in starts if first < s < last - FRAME), key=energy) + FRAME // 2
    silence = lambda ms: array.array("h", bytes(2 * RATE * ms // 1000))
    clip = (silence(300) + sentence[first:cut] + silence(pause_ms) + sentence[cut:last]
            + silence(600))
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(clip.tobytes())
    print((cut - first) * 1000 // RATE)


if __name__ == "__main__":
    main()
