#!/usr/bin/env python3
"""Independent reference for the end-to-end tests: writes key files and checks sorted ones.

Keys are raw little-endian arrays of one type (u32 u64 i32 i64 f32 f64). The reference order is the
documented one, implemented here from values, not from rmgsort's radix encoding: integers by value;
floats -inf < negatives < -0.0 < +0.0 < positives < +inf, then every NaN (any sign, any payload).
Descending reverses the numbers; the NaNs stay last. NaNs may stand in any order among themselves,
so the NaN tail is compared as a multiset of bit patterns; every other key is compared bit for bit.

  keys.py write TYPE FILE VALUE...        VALUE: an integer (12, -3, 0x7f), a float (1.5, -0.0, inf,
                                          -inf, nan, -nan), min, max, lowest, denorm, -denorm,
                                          or bits:0xHEX (a raw bit pattern)
  keys.py expect-sorted TYPE INPUT OUTPUT [asc|desc]
                                          exit 0 when OUTPUT is INPUT sorted, else 1 with the reason
  keys.py verify MANIFEST                 one "TYPE ORDER INPUT OUTPUT" per line; prints PASS/FAIL
                                          lines and exits 1 if any failed
  keys.py property TYPE FILE PROP         all-equal | all-zero | below:N | floats-in:LO:HI |
                                          nan-both-signs | ints-include:V,V,... | ascending | descending
  keys.py stats FILE [NAME=VALUE...]      FILE ('-': stdin) holds exactly one JSON object with the
                                          required keys; NAME=VALUE pins a top-level member's value
"""
import json
import math
import struct
import sys

FORMATS = {"u32": "I", "u64": "Q", "i32": "i", "i64": "q", "f32": "f", "f64": "d"}
BITS_FORMAT = {4: "I", 8: "Q"}


def width(type_name):
    return struct.calcsize("<" + FORMATS[type_name])


def is_float(type_name):
    return type_name.startswith("f")


def parse_value(type_name, text):
    """Returns the key's bytes."""
    fmt = "<" + FORMATS[type_name]
    w = width(type_name)
    if text.startswith("bits:"):
        return struct.pack("<" + BITS_FORMAT[w], int(text[5:], 0))
    if is_float(type_name):
        if type_name == "f32":
            specials = {"max": "0x7f7fffff", "lowest": "0xff7fffff", "min": "0x00800000", "-min": "0x80800000",
                        "denorm": "0x00000001", "-denorm": "0x80000001", "nan": "0x7fc00000",
                        "-nan": "0xffc00000"}
        else:
            specials = {"max": "0x7fefffffffffffff", "lowest": "0xffefffffffffffff",
                        "min": "0x0010000000000000", "-min": "0x8010000000000000", "denorm": "0x0000000000000001",
                        "-denorm": "0x8000000000000001", "nan": "0x7ff8000000000000",
                        "-nan": "0xfff8000000000000"}
        if text in specials:
            return struct.pack("<" + BITS_FORMAT[w], int(specials[text], 16))
        return struct.pack(fmt, float(text))
    bits = 8 * w
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if type_name.startswith("i") else (0, (1 << bits) - 1)
    value = {"min": lo, "max": hi}.get(text)
    if value is None:
        value = int(text, 0)
    return struct.pack(fmt, value)


def read_keys(type_name, path):
    data = open(path, "rb").read() if path != "-" else sys.stdin.buffer.read()
    w = width(type_name)
    if len(data) % w:
        raise ValueError(f"{path}: {len(data)} bytes is not a whole number of {type_name} keys")
    raw = [data[i:i + w] for i in range(0, len(data), w)]
    values = [v[0] for v in struct.iter_unpack("<" + FORMATS[type_name], data)]
    return raw, values


_REFERENCE_CACHE = {}


def reference_sort(type_name, path, order):
    """(numbers in the expected order as raw bytes, NaN bit patterns sorted, all input keys)."""
    cached = _REFERENCE_CACHE.get((type_name, path))
    if cached is None:
        cached = _REFERENCE_CACHE[(type_name, path)] = _reference_ascending(type_name, path)
    ordered, nans, raw = cached
    if order == "desc":
        ordered = ordered[::-1]  # reversing the numbers keeps -0.0/+0.0 and equal keys right
    return ordered, nans, raw


def _reference_ascending(type_name, path):
    raw, values = read_keys(type_name, path)
    if is_float(type_name):
        nans = sorted(r for r, v in zip(raw, values) if math.isnan(v))
        numbers = [(v, math.copysign(1.0, v), r) for r, v in zip(raw, values) if not math.isnan(v)]
        numbers.sort(key=lambda t: (t[0], t[1]))  # -0.0 (sign -1) before +0.0 (sign +1)
        ordered = [t[2] for t in numbers]
    else:
        nans = []
        ordered = [r for _, r in sorted(zip(values, raw), key=lambda t: t[0])]
    return ordered, nans, raw


def describe(type_name, key):
    value = struct.unpack("<" + FORMATS[type_name], key)[0]
    return f"{value!r} (0x{key[::-1].hex()})"


def compare_sorted(type_name, input_path, output_path, order):
    """None when OUTPUT is INPUT sorted in ORDER, else the reason."""
    ordered, nans, raw_in = reference_sort(type_name, input_path, order)
    raw_out, _ = read_keys(type_name, output_path)
    if len(raw_out) != len(raw_in):
        return f"{len(raw_out)} keys in the output, {len(raw_in)} in the input"
    for i, (got, want) in enumerate(zip(raw_out, ordered)):
        if got != want:
            return f"key {i}: {describe(type_name, got)}, expected {describe(type_name, want)}"
    tail = sorted(raw_out[len(ordered):])
    if tail != nans:
        return f"the last {len(nans)} keys are not the input's NaNs"
    return None


def property_holds(type_name, path, prop):
    raw, values = read_keys(type_name, path)
    name, _, arg = prop.partition(":")
    if name == "all-equal":
        return len(set(raw)) <= 1, f"{len(set(raw))} distinct keys"
    if name == "all-zero":
        return all(k == bytes(len(k)) for k in raw), "a key is not all zero bits"
    if name == "below":
        bound = int(arg, 0)
        bad = [v for v in values if not 0 <= v < bound]
        return not bad, f"{len(bad)} keys outside [0, {bound}), e.g. {bad[:3]}"
    if name == "floats-in":
        lo, hi = (float(x) for x in arg.split(":"))
        bad = [v for v in values if not lo <= v < hi]
        return not bad, f"{len(bad)} keys outside [{lo}, {hi}), e.g. {bad[:3]}"
    if name == "nan-both-signs":
        signs = {math.copysign(1.0, v) for v in values if math.isnan(v)}
        return signs == {1.0, -1.0}, f"NaN signs present: {signs}"
    if name == "ints-include":
        wanted = {int(x, 0) for x in arg.split(",")}
        missing = wanted - set(values)
        return not missing, f"missing {sorted(missing)}"
    if name in ("ascending", "descending"):
        order = "asc" if name == "ascending" else "desc"
        why = compare_sorted(type_name, path, path, order)
        return why is None, why
    raise ValueError(f"unknown property {prop}")


REQUIRED_STATS = ("version", "key_type", "keys", "bytes", "threads", "wall_seconds", "phases_seconds",
                  "throughput")


def check_stats(path, pins):
    text = sys.stdin.read() if path == "-" else open(path).read()
    try:
        stats = json.loads(text)  # exactly one JSON value, nothing after it
    except json.JSONDecodeError as e:
        return f"not one JSON object: {e}: {text[:200]!r}"
    if not isinstance(stats, dict):
        return "not a JSON object"
    missing = [k for k in REQUIRED_STATS if k not in stats]
    if missing:
        return f"missing keys {missing}"
    for key in ("keys", "bytes", "threads"):
        if not isinstance(stats[key], int) or stats[key] < 0:
            return f"{key} is not a non-negative integer: {stats[key]!r}"
    if not isinstance(stats["wall_seconds"], (int, float)) or stats["wall_seconds"] < 0:
        return f"wall_seconds is not a non-negative number: {stats['wall_seconds']!r}"
    for key in ("phases_seconds", "throughput"):
        if not isinstance(stats[key], dict):
            return f"{key} is not an object"
    if stats["threads"] < 1:
        return "threads < 1"
    for pin in pins:
        key, _, want = pin.partition("=")
        got = stats.get(key)
        if str(got) != want:
            return f"{key} is {got!r}, expected {want}"
    return None


def main(argv):
    command = argv[1]
    if command == "write":
        type_name, path, values = argv[2], argv[3], argv[4:]
        with open(path, "wb") as f:
            for text in values:
                f.write(parse_value(type_name, text))
        return 0
    if command == "expect-sorted":
        order = argv[5] if len(argv) > 5 else "asc"
        why = compare_sorted(argv[2], argv[3], argv[4], order)
        if why:
            print(why)
            return 1
        return 0
    if command == "verify":
        failed = 0
        for line in open(argv[2]):
            if not line.strip():
                continue
            if len(_REFERENCE_CACHE) > 4:
                _REFERENCE_CACHE.clear()
            type_name, order, input_path, output_path = line.split()
            try:
                why = compare_sorted(type_name, input_path, output_path, order)
            except (OSError, ValueError) as e:
                why = str(e)
            label = f"{output_path.rsplit('/', 1)[-1]} is {input_path.rsplit('/', 1)[-1]} sorted ({order}) per the reference"
            if why:
                failed += 1
                print(f"FAIL {label}\n    FAIL: {why}")
            else:
                print(f"PASS {label}")
        return 1 if failed else 0
    if command == "property":
        ok, why = property_holds(argv[2], argv[3], argv[4])
        if not ok:
            print(why)
            return 1
        return 0
    if command == "stats":
        why = check_stats(argv[2], argv[3:])
        if why:
            print(why)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
