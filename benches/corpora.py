#!/usr/bin/env python3
"""Benchmark texts in the scripts of the world, generated deterministically.

    python3 benches/corpora.py DIR [SIZE]      writes DIR/<name>.txt of about SIZE bytes each

Each corpus is prose-like: words of plausible lengths made from the script's letters (with its
combining marks where the script writes them), the script's own punctuation and spaces, lines of
varied length (some empty), built from a fixed seed, about 4 MB of lines repeated to the size
(cut at a line end). The English-like text of bench.py is separate (`english`).

| name | what |
|---|---|
| cyrillic | Russian-like words, «» — punctuation, ASCII spaces |
| greek | Greek with tonos, ASCII spaces |
| arabic | Arabic letters, about one word in three with harakat (combining), Arabic comma |
| devanagari | consonants with matras, virama, anusvara (combining and spacing marks), danda |
| chinese | Han characters, CJK punctuation (fullwidth), no spaces between words |
| japanese | hiragana, katakana and kanji, 、。「」, an ideographic space now and then |
| korean | Hangul syllables, ASCII spaces and punctuation |
| emoji | English words with emoji, skin tones, ZWJ sequences, flags, variation selectors |
| mixed | lines from all of the above and English |
| invalid | the mixed text with 1 % of its bytes replaced by random bytes 0x80-0xFF |
"""

import os
import random
import sys

BLOCK = 4 << 20

ENGLISH = ("the of and to in is was that for it with as his on be at by had not are but from or have an "
           "they which one you were all her she there would their we him been has when who will more no if "
           "out so said what up its about into than them can only other new some time could these two may "
           "then first any my now such like our over man me even most made after also did many before must").split()


def rng_for(name):
    return random.Random(sum(map(ord, name)) * 7919)


def letters(first, last, skip=()):
    return [chr(c) for c in range(first, last + 1) if c not in skip]


CYR = letters(0x430, 0x44F) + ["ё"]
GREEK = letters(0x3B1, 0x3C9, skip=(0x3C2,)) + ["ά", "έ", "ή", "ί", "ό", "ύ", "ώ"]
ARABIC = letters(0x627, 0x64A, skip=range(0x63B, 0x641))
HARAKAT = letters(0x64B, 0x652)
DEV_CONS = letters(0x915, 0x939)
DEV_MATRA = letters(0x93E, 0x94C)
HAN = [chr(0x4E00 + i * 37 % 0x51A5) for i in range(3000)]
HIRAGANA = letters(0x3041, 0x3093)
KATAKANA = letters(0x30A1, 0x30F6)
HANGUL = [chr(0xAC00 + i * 13 % 11172) for i in range(2000)]
EMOJI = letters(0x1F600, 0x1F64F) + letters(0x1F300, 0x1F3F0) + letters(0x1F90C, 0x1F9FF)


def word(rng, alphabet, lo, hi):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def cyrillic_word(rng):
    w = word(rng, CYR, 1, 10)
    return w.capitalize() if rng.random() < 0.1 else w


def greek_word(rng):
    return word(rng, GREEK, 1, 9)


def arabic_word(rng):
    w = word(rng, ARABIC, 2, 7)
    if rng.random() < 0.3:
        w = "".join(c + (rng.choice(HARAKAT) if rng.random() < 0.6 else "") for c in w)
    return w


def devanagari_word(rng):
    out = []
    for _ in range(rng.randint(1, 4)):
        out.append(rng.choice(DEV_CONS))
        r = rng.random()
        if r < 0.5:
            out.append(rng.choice(DEV_MATRA))
        elif r < 0.6:
            out.append("\u094d" + rng.choice(DEV_CONS))
    if rng.random() < 0.2:
        out.append("\u0902")
    return "".join(out)


def korean_word(rng):
    return word(rng, HANGUL, 1, 4)


def sentence(rng, make_word, n, seps=(" ",), ends=(".",), inner=(",",)):
    words = [make_word(rng) for _ in range(n)]
    out = []
    for i, w in enumerate(words):
        out.append(w)
        if i + 1 < n:
            if rng.random() < 0.08:
                out.append(rng.choice(inner))
            out.append(rng.choice(seps))
    out.append(rng.choice(ends))
    return "".join(out)


def spaced_lines(rng, make_word, inner, ends, quotes=None):
    lines, total = [], 0
    while total < BLOCK // 3:
        if rng.random() < 0.06:
            lines.append("")
            continue
        n = rng.choice([2, 4, 6, 8, 9, 10, 11, 12, 13, 14, 16, 20])
        line = sentence(rng, make_word, n, inner=inner, ends=ends)
        if quotes and rng.random() < 0.15:
            line = quotes[0] + line + quotes[1]
        if rng.random() < 0.05:
            line = "\t" + line
        lines.append(line)
        total += len(line)
    return lines


def cjk_lines(rng, make_chunk, punct, ends, space_rate):
    lines, total = [], 0
    while total < BLOCK // 3:
        if rng.random() < 0.05:
            lines.append("")
            continue
        parts = []
        for _ in range(rng.choice([1, 2, 3, 4, 6])):
            parts.append(make_chunk(rng))
            parts.append(rng.choice(punct))
            if rng.random() < space_rate:
                parts.append("\u3000")
            if rng.random() < 0.05:
                parts.append(str(rng.randint(1, 2026)))
        parts[-1] = rng.choice(ends)
        lines.append("".join(parts))
        total += len(lines[-1])
    return lines


def chinese(rng):
    return cjk_lines(rng, lambda r: word(r, HAN, 2, 14), "，、，；：", "。！？", 0.0)


def japanese(rng):
    def chunk(r):
        out = []
        for _ in range(r.randint(1, 5)):
            kind = r.random()
            if kind < 0.45:
                out.append(word(r, HIRAGANA, 1, 4))
            elif kind < 0.75:
                out.append(word(r, HAN, 1, 3))
            else:
                out.append(word(r, KATAKANA, 2, 6))
        s = "".join(out)
        return "「" + s + "」" if r.random() < 0.05 else s
    return cjk_lines(rng, chunk, "、、、", "。", 0.04)


def emoji(rng):
    def piece(r):
        x = r.random()
        if x < 0.78:
            return r.choice(ENGLISH)
        if x < 0.88:
            return r.choice(EMOJI)
        if x < 0.92:
            return "\U0001F44D" + chr(0x1F3FB + r.randint(0, 4))
        if x < 0.95:
            return "\U0001F468\u200d\U0001F469\u200d\U0001F467"
        if x < 0.98:
            return chr(0x1F1E6 + r.randint(0, 25)) + chr(0x1F1E6 + r.randint(0, 25))
        return "\u2764\ufe0f"
    return spaced_lines(rng, piece, ",", ".!")


def english_lines(rng):
    return spaced_lines(rng, lambda r: r.choice(ENGLISH), ",;", ".")


MAKERS = {
    "cyrillic": lambda r: spaced_lines(r, cyrillic_word, [",", " —", ":"], ".!?", "«»"),
    "greek": lambda r: spaced_lines(r, greek_word, [",", "·"], ".;"),
    "arabic": lambda r: spaced_lines(r, arabic_word, ["\u060c", ":"], [".", "\u061f"]),
    "devanagari": lambda r: spaced_lines(r, devanagari_word, [","], ["\u0964", "?"]),
    "chinese": chinese,
    "japanese": japanese,
    "korean": lambda r: spaced_lines(r, korean_word, [","], ".?!"),
    "emoji": emoji,
}


def block_for(name):
    rng = rng_for(name)
    if name in MAKERS:
        return ("\n".join(MAKERS[name](rng)) + "\n").encode()
    if name in ("mixed", "invalid"):
        lines = []
        for maker in list(MAKERS.values()) + [english_lines]:
            lines.extend(maker(rng_for("mixed-" + str(len(lines))))[:4000])
        rng.shuffle(lines)
        data = bytearray(("\n".join(lines) + "\n").encode())
        if name == "invalid":
            bad = random.Random(99)
            for _ in range(len(data) // 100):
                data[bad.randrange(len(data))] = bad.randint(0x80, 0xFF)
        return bytes(data)
    raise ValueError(name)


NAMES = ["cyrillic", "greek", "arabic", "devanagari", "chinese", "japanese", "korean", "emoji", "mixed", "invalid"]


def write(path, name, size):
    block = block_for(name)
    with open(path, "wb") as f:
        written = 0
        while written + len(block) <= size:
            f.write(block)
            written += len(block)
        rest = block[: size - written]
        f.write(rest[: rest.rfind(b"\n") + 1])


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000_000
    os.makedirs(out, exist_ok=True)
    for name in NAMES:
        path = os.path.join(out, name + ".txt")
        if not os.path.exists(path):
            write(path, name, size)
        print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
