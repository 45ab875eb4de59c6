"""Fast 64-bit hashes of string columns, computed with numpy over pyarrow's buffers.

pdireval compares millions of identifiers (the duplicate-key check of a run frame, the
lookup of retrieved documents in the qrels). Factorizing strings (``pd.factorize``,
``DataFrame.duplicated``, merges) builds hash tables of strings and costs seconds on a
7M-row run; hashing the raw bytes costs a few numpy passes. The bytes are made fixed-width
with pyarrow's ``ascii_rpad`` (which pads by bytes, so any UTF-8 works) and read as
uint64 words; ids too long for that are hashed word by word from the unpadded buffer.

A hash is never trusted on its own: equal hashes are *candidates* that callers verify
exactly on the strings (see :func:`duplicated_rows`). Distinct hashes prove distinct
strings, since the hash is a function of the string.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pdireval.core.chunking import CHUNK_CELLS

__all__ = [
    "arrow_strings",
    "hash_strings",
    "mix",
    "mix_select",
    "take",
    "sorted_unique",
    "duplicated_rows",
    "to_numpy_bool",
]

_U64 = np.uint64
_MUL = _U64(0x9E3779B97F4A7C15)  # golden-ratio multiplier
_M1 = _U64(0xBF58476D1CE4E5B9)  # splitmix64 finaliser constants
_M2 = _U64(0x94D049BB133111EB)
# _MASK[k] keeps the low k bytes of a little-endian word (k = 0..8)
_MASK = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
_MAX_PAD = 64  # widest id (bytes) hashed from a padded copy
_BLOCK = CHUNK_CELLS // 4  # strings per padded copy (1 << 20): bounds its memory
_STEP = 1 << 15  # strings per numpy step: temporaries stay in cache


def _mix(h: np.ndarray, tmp: np.ndarray | None = None) -> np.ndarray:
    """splitmix64 finaliser, in place (uint64 arithmetic wraps modulo 2**64)."""
    tmp = np.empty_like(h) if tmp is None else tmp[: len(h)]
    np.right_shift(h, _U64(30), out=tmp)
    h ^= tmp
    h *= _M1
    np.right_shift(h, _U64(27), out=tmp)
    h ^= tmp
    h *= _M2
    np.right_shift(h, _U64(31), out=tmp)
    h ^= tmp
    return h


def mix(h: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """A new uint64 hash of the pairs (``h``, integer ``codes``), elementwise."""
    n = len(h)
    codes = np.ascontiguousarray(codes, dtype=np.int64).view(np.uint64)
    out = np.empty(n, dtype=np.uint64)
    tmp = np.empty(min(n, _STEP), dtype=np.uint64)
    for a in range(0, n, _STEP):  # cache-sized blocks: no large temporaries
        o = out[a : a + _STEP]
        np.multiply(codes[a : a + _STEP], _M1, out=o)
        o ^= h[a : a + _STEP]
        _mix(o, tmp)
    return out


def mix_select(
    h: np.ndarray, codes: np.ndarray, targets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose :func:`mix` (``h``, ``codes``) may be in ``targets``, with those hashes.

    A bitmap of the targets' low bits (about 16 bits per target, so it stays in cache)
    rejects most other rows without a hash-table lookup; what passes is a superset of the
    rows whose hash is in ``targets`` (callers look those up exactly)."""
    n = len(h)
    bits = int(np.clip(np.ceil(np.log2(max(len(targets), 1) * 16)), 10, 26))
    mask = _U64((1 << bits) - 1)
    bitmap = np.zeros(1 << bits, dtype=bool)
    bitmap[(targets & mask).astype(np.intp)] = True
    codes = np.ascontiguousarray(codes, dtype=np.int64).view(np.uint64)
    step = min(n, _STEP) or 1
    o = np.empty(step, dtype=np.uint64)
    tmp = np.empty(step, dtype=np.uint64)
    low = np.empty(step, dtype=np.intp)
    rows, keys = [], []
    for a in range(0, n, _STEP):  # cache-sized blocks: the full hash column never exists
        m = min(n, a + _STEP) - a
        ob = o[:m]
        np.multiply(codes[a : a + m], _M1, out=ob)
        ob ^= h[a : a + m]
        _mix(ob, tmp)
        np.bitwise_and(ob, mask, out=tmp[:m])
        low[:m] = tmp[:m]
        sel = np.flatnonzero(bitmap[low[:m]])
        rows.append(sel + a)
        keys.append(ob[sel])
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64)
    return np.concatenate(rows).astype(np.int64), np.concatenate(keys)


def take(values: pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``values[rows]`` for sorted int64 ``rows``, one chunk at a time (pyarrow's take on a
    chunked array first concatenates all chunks, a full copy of the column)."""
    if values.num_chunks == 1:
        return values.chunk(0).take(pa.array(rows))
    bounds = np.cumsum([0] + [len(c) for c in values.chunks])
    cut = np.searchsorted(rows, bounds)
    pieces = [
        chunk.take(pa.array(rows[cut[i] : cut[i + 1]] - bounds[i]))
        for i, chunk in enumerate(values.chunks)
        if cut[i + 1] > cut[i]
    ]
    if not pieces:
        return pa.array([], type=values.type)
    return pa.concat_arrays(pieces)


def sorted_unique(values: np.ndarray, *, presorted: bool = False) -> np.ndarray:
    """Distinct values, sorted (``np.unique`` without its hash table: one sort, or none when
    ``presorted``)."""
    s = values if presorted else np.sort(values)
    if len(s) == 0:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def to_numpy_bool(array) -> np.ndarray:
    """A pyarrow boolean (chunked) array without nulls as a numpy bool array."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    return array.to_numpy(zero_copy_only=False)


def arrow_strings(values) -> pa.ChunkedArray:
    """The pyarrow string data behind a pandas string Series / array (no copy when pandas
    already holds it in pyarrow), as a ``large_string`` or ``string`` chunked array."""
    array = values.array if isinstance(values, pd.Series) else values
    native = getattr(array, "_pa_array", None)
    if native is None:
        native = pa.chunked_array([pa.array(np.asarray(array, dtype=object), pa.large_string())])
    elif isinstance(native, pa.Array):
        native = pa.chunked_array([native])
    if not (pa.types.is_string(native.type) or pa.types.is_large_string(native.type)):
        native = native.cast(pa.large_string())
    return native


def _offsets(chunk: pa.Array) -> np.ndarray:
    off_type = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    buf = chunk.buffers()[1]
    return np.frombuffer(buf, dtype=off_type)[chunk.offset : chunk.offset + len(chunk) + 1].astype(
        np.int64
    )


def _hash_padded(chunk: pa.Array, width: int) -> np.ndarray | None:
    """Hash via a copy padded with NUL bytes to ``width`` (a multiple of 8); None when the
    padded copy is not regular (cannot happen for valid strings, checked anyway).

    Works in cache-sized blocks with preallocated temporaries: on 7M ids this is several
    times faster than whole-array numpy expressions (page faults of fresh temporaries)."""
    n = len(chunk)
    length = pc.binary_length(chunk).to_numpy(zero_copy_only=False).astype(np.uint64)
    padded = pc.ascii_rpad(chunk, width=width, padding="\0")
    off = _offsets(padded)
    if int(off[-1] - off[0]) != n * width:
        return None
    n_words = width // 8
    words = np.frombuffer(padded.buffers()[2], dtype="<u8", count=n * n_words, offset=int(off[0]))
    words = words.reshape(n, n_words)
    out = np.empty(n, dtype=np.uint64)
    tmp = np.empty(_STEP, dtype=np.uint64)
    x = np.empty(_STEP, dtype=np.uint64)
    live = np.empty(_STEP, dtype=bool)
    for a in range(0, n, _STEP):  # blocks of ids, and 8-byte words of the widest id
        b = min(n, a + _STEP)
        m = b - a
        h = out[a:b]
        ln = length[a:b]
        np.multiply(ln, _MUL, out=h)
        for j in range(n_words):
            xs, ts = x[:m], tmp[:m]
            np.bitwise_xor(h, words[a:b, j], out=xs)
            xs *= _MUL
            np.right_shift(xs, _U64(29), out=ts)
            xs ^= ts
            # words past an id's end leave its hash alone (as in _hash_unpadded)
            np.greater(ln, _U64(8 * j), out=live[:m])
            np.copyto(h, xs, where=live[:m])
        _mix(h, tmp)
    return out


def _hash_unpadded(chunk: pa.Array) -> np.ndarray:
    """Hash word by word from the unpadded buffer (for very long ids)."""
    offsets = _offsets(chunk)
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = np.zeros(hi - lo + 8, dtype=np.uint8)  # 8 bytes of padding for the last word
    buf = chunk.buffers()[2]
    if buf is not None and hi > lo:
        data[: hi - lo] = np.frombuffer(buf, dtype=np.uint8)[lo:hi]
    # every byte position viewed as the start of an (unaligned) little-endian uint64
    words = np.ndarray(shape=(len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))
    start = offsets[:-1] - lo
    length = np.diff(offsets)
    h = length.astype(np.uint64) * _MUL
    j = 0
    live = np.flatnonzero(length > 0)
    while len(live):  # loop over 8-byte words; each pass only touches ids that long
        rem = np.minimum(length[live] - 8 * j, 8)
        w = words[start[live] + 8 * j] & _MASK[rem]
        x = h[live] ^ w
        x *= _MUL
        x ^= x >> _U64(29)
        h[live] = x
        j += 1
        live = live[length[live] > 8 * j]
    return _mix(h)


def _hash_chunk(chunk: pa.Array) -> np.ndarray:
    n = len(chunk)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    if chunk.null_count:
        raise ValueError("cannot hash missing strings")  # callers reject missing ids first
    lengths = pc.binary_length(chunk)
    widest = int(pc.max(lengths).as_py() or 0)
    width = max(8, -(-widest // 8) * 8)
    if width <= _MAX_PAD:
        parts = []
        for a in range(0, n, _BLOCK):
            h = _hash_padded(chunk.slice(a, _BLOCK), width)
            if h is None:  # pragma: no cover - defensive
                return _hash_unpadded(chunk)
            parts.append(h)
        return np.concatenate(parts)
    return _hash_unpadded(chunk)


def hash_strings(values) -> np.ndarray:
    """uint64 hash of every string of a pandas string Series / array / pyarrow array
    (no missing values).

    Equal strings get equal hashes; two different strings collide with probability about
    2**-64 (treat equal hashes as candidates and verify).
    """
    native = values if isinstance(values, pa.ChunkedArray) else arrow_strings(values)
    parts = [_hash_chunk(c) for c in native.chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


def duplicated_rows(codes: np.ndarray, strings: pa.ChunkedArray, hashes: np.ndarray) -> np.ndarray:
    """Rows whose (integer ``codes``, string) pair equals another row's: exactly
    ``DataFrame.duplicated(keep=False)`` of the pair, in O(n) plus one sort of uint64.

    ``hashes`` are :func:`hash_strings` of ``strings``. One sort of the uint64 pair hashes
    finds the candidate rows (equal pair hashes); only those are compared exactly, so a
    hash collision can never report a false duplicate, and distinct hashes prove distinct
    pairs. Returns the sorted row numbers of every row in a duplicate group.
    """
    s = mix(hashes, codes)
    s.sort()  # in place: one n-sized temporary only
    equal = s[1:] == s[:-1]
    if not equal.any():
        return np.zeros(0, dtype=np.int64)
    cand_key = sorted_unique(s[1:][equal])
    del s
    key = mix(hashes, codes)
    cand = np.flatnonzero(to_numpy_bool(pc.is_in(pa.array(key), value_set=pa.array(cand_key))))
    # exact comparison among the candidates only: (hash, code, string)
    sub = pd.DataFrame(
        {
            "key": key[cand],
            "code": codes[cand],
            "s": take(strings, cand).to_numpy(zero_copy_only=False),
        }
    )
    dup = sub.duplicated(["key", "code", "s"], keep=False).to_numpy()
    return cand[dup]
