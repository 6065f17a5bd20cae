#!/usr/bin/env python3
"""Generate llm/src/tokenizer/unicode_flags.rs: Unicode general-category classes as ranges.

Input: UnicodeData.txt (Debian package `unicode-data`, /usr/share/unicode/UnicodeData.txt).
Each range start gets one class bit (number, letter, separator, mark, punctuation, symbol,
control, undefined), the same classes the pre-tokenizer regexes (\\p{L}, \\p{N}, ...) use.
Run: python3 llm/tools/gen_unicode_flags.py [/path/UnicodeData.txt] > llm/src/tokenizer/unicode_flags.rs
"""
import sys

MAX = 0x110000
UNDEFINED, NUMBER, LETTER, SEPARATOR, MARK, PUNCT, SYMBOL, CONTROL = (1 << i for i in range(8))
CLASS = {"C": CONTROL, "L": LETTER, "M": MARK, "N": NUMBER, "P": PUNCT, "S": SYMBOL, "Z": SEPARATOR}

path = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/unicode/UnicodeData.txt"
flags = bytearray([UNDEFINED]) * MAX
first = None
version_note = "UnicodeData.txt"
for line in open(path, encoding="utf-8"):
    f = line.rstrip("\n").split(";")
    cpt, name, cat = int(f[0], 16), f[1], f[2]
    bit = UNDEFINED if cat == "Cn" else CLASS[cat[0]]
    if name.endswith(", First>"):
        first = cpt
        continue
    if name.endswith(", Last>"):
        for c in range(first, cpt + 1):
            flags[c] = bit
        first = None
        continue
    flags[cpt] = bit

# Unicode 15.1 additions missing from a 15.0 UnicodeData.txt (letters matter to \p{L}):
# CJK Unified Ideographs Extension I.
if flags[0x2EBF0] == UNDEFINED:
    for c in range(0x2EBF0, 0x2EE5E):
        flags[c] = LETTER
    version_note += " + Unicode 15.1 CJK Extension I"

ranges = []
for c in range(MAX):
    if not ranges or ranges[-1][1] != flags[c]:
        ranges.append((c, flags[c]))

out = sys.stdout
out.write("//! Unicode general-category classes by code point range (generated, do not edit).\n")
out.write(f"//! Source: {version_note}; generator: llm/tools/gen_unicode_flags.py.\n\n")
out.write("/// `(first code point, class bit)`, sorted; a range ends where the next begins.\n")
out.write("#[rustfmt::skip]\n")
out.write(f"pub(super) static RANGES: [(u32, u8); {len(ranges)}] = [\n")
for i in range(0, len(ranges), 6):
    out.write("    " + " ".join(f"(0x{c:05X}, {b})," for c, b in ranges[i:i + 6]) + "\n")
out.write("];\n")
