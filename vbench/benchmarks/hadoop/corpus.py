"""A deterministic natural-language-like corpus for WordCount.

Word frequencies follow Zipf's law (exponent ~1.1, as in English text) over a vocabulary of
pronounceable pseudo-words whose lengths grow with rank, as real words' do; the same seed and
size give the same bytes on every machine.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

_CONSONANTS = list("bcdfghjklmnprstvwz")
_VOWELS = list("aeiou")


def vocabulary(size: int, seed: int) -> list[str]:
    """`size` distinct pseudo-words; frequent ranks get short words."""
    rng = np.random.default_rng(seed)
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < size:
        rank = len(words) + 1
        syllables = 1 + min(4, int(np.log10(rank + 1))) + int(rng.integers(0, 2))
        w = "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(syllables))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def zipf_probabilities(size: int, exponent: float) -> np.ndarray:
    p = 1.0 / np.arange(1, size + 1) ** exponent
    return p / p.sum()


def write_corpus(
    path: str,
    size_bytes: int,
    seed: int = 20141,
    vocab_size: int = 20_000,
    exponent: float = 1.1,
    words_per_line: int = 12,
) -> dict:
    """Write ~`size_bytes` of text to `path`; returns the exact word and byte counts."""
    vocab = np.array(vocabulary(vocab_size, seed))
    probs = zipf_probabilities(vocab_size, exponent)
    rng = np.random.default_rng(seed + 1)
    total_words = written = 0
    with open(path, "w", encoding="ascii") as fh:
        while written < size_bytes:
            idx = rng.choice(vocab_size, size=(4096, words_per_line), p=probs)
            lines = [" ".join(row) for row in vocab[idx]]
            chunk = "\n".join(lines) + "\n"
            if written + len(chunk) > size_bytes:
                keep = []
                for line in lines:
                    if written + len(line) + 1 > size_bytes and keep:
                        break
                    keep.append(line)
                    written += len(line) + 1
                fh.write("\n".join(keep) + "\n")
                total_words += sum(len(line.split()) for line in keep)
                break
            fh.write(chunk)
            written += len(chunk)
            total_words += len(lines) * words_per_line
    return {"words": total_words, "bytes": written, "seed": seed, "vocab_size": vocab_size, "exponent": exponent}


def cached_corpus(
    cache_dir: Path, size_bytes: int, seed: int = 20141, vocab_size: int = 20_000, exponent: float = 1.1
) -> tuple[str, dict]:
    """The corpus for these parameters, generated once into `cache_dir` (a few seconds per 64 MB)."""
    stem = f"corpus-{size_bytes}-{seed}-{vocab_size}-{exponent}"
    text, info = cache_dir / f"{stem}.txt", cache_dir / f"{stem}.json"
    if not (text.exists() and info.exists()):
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = text.with_suffix(f".tmp{os.getpid()}")
        meta = write_corpus(str(tmp), size_bytes, seed, vocab_size, exponent)
        tmp.replace(text)
        info.write_text(json.dumps(meta))
    return str(text), json.loads(info.read_text())
