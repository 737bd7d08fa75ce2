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
  keys.py stats FILE [NAME=VALUE|NAME>N|NAME~TEXT...]
                                          FILE ('-': stdin) holds exactly one --stats JSON object
                                          (schema 1): the members every one begins with (schema,
                                          status, exit_code, error, start_time, host, command_line),
                                          no "" and no *_ms anywhere, and, for status ok, the required
                                          keys, each of the right type and consistent (the rounds,
                                          the peak memory per engine); NAME=VALUE pins a member's
                                          value (None for null), NAME>N bounds a number from below,
                                          NAME~TEXT wants TEXT in a string (NAME: a top-level
                                          member, or OBJECT.MEMBER)
  keys.py progress FILE [WANT...]         FILE (a captured stderr) holds only --progress lines:
                                          "\r\033[K" + "rmgsort: PHASE ...", at most 100 columns,
                                          every "[D/T rounds]" with D <= T, then at most one summary
                                          line after the last erase, ending with the only newline.
                                          WANT: rounds | rate | eta | bytes | phase:TEXT (some line
                                          has it) | summary (the summary line is there)
"""
import json
import math
import re
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


# Every --stats object, schema 1, whatever the run's end; a successful run's also has the rest.
STATS_HEADER = ("schema", "status", "exit_code", "error", "command", "version", "start_time", "host", "command_line")
REQUIRED_STATS = STATS_HEADER + (
    "key_type", "keys", "bytes", "threads", "host_memory_limit_bytes", "wall_seconds", "phases_seconds",
    "throughput", "engine", "gpus_selected", "peak_host_memory_bytes", "peak_device_memory_bytes", "rounds",
    "round_keys", "round_sort_seconds")
THROUGHPUTS = ("keys_per_second", "bytes_per_second", "sort_keys_per_second", "partition_bytes_per_second",
               "read_bytes_per_second", "write_bytes_per_second")
START_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def is_count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_consistency(stats):
    """None when the members of a successful run agree with each other, else the reason."""
    if not is_count(stats["peak_host_memory_bytes"]) or stats["peak_host_memory_bytes"] == 0:
        return f"peak_host_memory_bytes is not a positive integer: {stats['peak_host_memory_bytes']!r}"
    device = stats["peak_device_memory_bytes"]
    if not isinstance(device, list) or not all(is_count(b) for b in device):
        return f"peak_device_memory_bytes is not a list of byte counts: {device!r}"
    if stats["engine"] == "cpu" and device:
        return f"the CPU engine reports device memory {device}"
    if stats["engine"] == "gpu" and (len(device) != len(stats["gpus_selected"]) or 0 in device):
        return f"peak_device_memory_bytes {device} is not one allocation per GPU of {stats['gpus_selected']}"
    for key in THROUGHPUTS:  # null where the phase did not run
        value = stats["throughput"].get(key, "absent")
        if value is not None and (not is_number(value) or value < 0):
            return f"throughput.{key} is not a non-negative number or null: {value!r}"
    rounds, round_keys, seconds = stats["rounds"], stats["round_keys"], stats["round_sort_seconds"]
    if not is_count(rounds) or rounds < 1:
        return f"rounds is not a positive integer: {rounds!r}"
    if not isinstance(round_keys, list) or len(round_keys) != rounds or not all(is_count(k) for k in round_keys):
        return f"round_keys is not {rounds} key counts: {round_keys!r}"
    if not isinstance(seconds, list) or len(seconds) != rounds:
        return f"round_sort_seconds does not have {rounds} entries: {seconds!r}"
    if sum(round_keys) != stats["keys"]:
        return f"round_keys add up to {sum(round_keys)}, not keys {stats['keys']}"
    return None


def check_empty_values(value, where="stats"):
    """None when no member anywhere is "" (absent is null) or counts milliseconds, else the reason."""
    if value == "":
        return f"{where} is an empty string (absent values are null)"
    if isinstance(value, dict):
        for key, member in value.items():
            if key.endswith("_ms"):
                return f"{where}.{key} is in milliseconds (schema 1 has seconds everywhere)"
            why = check_empty_values(member, f"{where}.{key}")
            if why:
                return why
    if isinstance(value, list):
        for i, member in enumerate(value):
            why = check_empty_values(member, f"{where}[{i}]")
            if why:
                return why
    return None


def check_header(stats):
    """None when the members every --stats object begins with are right, else the reason."""
    if stats["schema"] != 1:
        return f"schema is {stats['schema']!r}, expected 1"
    if stats["status"] == "ok":
        if stats["exit_code"] != 0 or stats["error"] is not None:
            return f"status ok with exit_code {stats['exit_code']!r} and error {stats['error']!r}"
    elif stats["status"] == "error":
        if not is_count(stats["exit_code"]) or stats["exit_code"] == 0:
            return f"status error with exit_code {stats['exit_code']!r}"
        if not isinstance(stats["error"], str) or not stats["error"]:
            return f"status error without an error message: {stats['error']!r}"
    else:
        return f"status is {stats['status']!r}, expected ok or error"
    if not isinstance(stats["start_time"], str) or not START_TIME.fullmatch(stats["start_time"]):
        return f"start_time is not ISO 8601 UTC to the millisecond: {stats['start_time']!r}"
    if not isinstance(stats["host"], str):
        return f"host is not a string: {stats['host']!r}"
    line = stats["command_line"]
    if not isinstance(line, list) or not line or not all(isinstance(a, str) for a in line):
        return f"command_line is not a list of strings: {line!r}"
    if stats["command"] not in line:
        return f"command_line {line!r} does not hold the command {stats['command']!r}"
    return None


def check_stats(path, pins):
    """None when PATH holds one --stats object (a successful run's unless a pin says status=error) with
    the pinned values, else the reason."""
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    try:
        stats = json.loads(text)  # exactly one JSON value, nothing after it
    except json.JSONDecodeError as e:
        return f"not one JSON object: {e}: {text[:200]!r}"
    if not isinstance(stats, dict):
        return "not a JSON object"
    failed = stats.get("status") == "error"
    missing = [k for k in (STATS_HEADER if failed else REQUIRED_STATS) if k not in stats]
    if missing:
        return f"missing keys {missing}"
    why = check_header(stats) or check_empty_values(stats)
    if why:
        return why
    if not failed:
        for key in ("keys", "bytes", "threads", "host_memory_limit_bytes"):
            if not is_count(stats[key]):
                return f"{key} is not a non-negative integer: {stats[key]!r}"
        if not is_number(stats["wall_seconds"]) or stats["wall_seconds"] < 0:
            return f"wall_seconds is not a non-negative number: {stats['wall_seconds']!r}"
        for key in ("phases_seconds", "throughput"):
            if not isinstance(stats[key], dict):
                return f"{key} is not an object"
        if stats["threads"] < 1:
            return "threads < 1"
        why = check_consistency(stats)
        if why:
            return why
    for pin in pins:
        match = re.fullmatch(r"([\w.]+)([=>~])(.*)", pin, re.DOTALL)
        if not match:
            return f"bad pin {pin!r}: NAME=VALUE, NAME>NUMBER or NAME~TEXT"
        key, relation, want = match.groups()
        got = stats
        for part in key.split("."):  # throughput.read_bytes_per_second: a nested member
            got = got.get(part) if isinstance(got, dict) else None
        if relation == "=" and str(got) != want:
            return f"{key} is {got!r}, expected {want}"
        if relation == ">" and not (is_number(got) and got > float(want)):
            return f"{key} is {got!r}, expected more than {want}"
        if relation == "~" and not (isinstance(got, str) and want in got):
            return f"{key} is {got!r}, expected it to contain {want!r}"
    return None


PROGRESS_COLUMNS = 100
SIZE = r"\d+(\.\d+)? (B|KiB|MiB|GiB|TiB)"
PROGRESS_WANTS = {
    "rounds": re.compile(r" \[\d+/\d+ rounds\]"),
    "rate": re.compile(" " + SIZE + "/s"),
    "eta": re.compile(r" ETA (\d+s|\d+m\d\ds|\d+h\d\dm)$"),
    "bytes": re.compile(" " + SIZE + "( |/|$)"),
}


# The line --progress ends a run with (every mode but json).
PROGRESS_SUMMARY = re.compile(r"rmgsort: (sorted|checked|merged) " + SIZE + r" in (\d+\.\d\ds|\d+m\d\ds|\d+h\d\dm)"
                              r"( \(" + SIZE + r"/s\))? on (the CPU|\d+ GPUs?)")


def check_progress(path, wants):
    """None when PATH holds only progress lines that meet every want, else the reason."""
    text = open(path, encoding="utf-8", errors="replace", newline="").read()  # keep the \r
    summary = None
    if "\n" in text:
        if text.index("\n") != len(text) - 1:
            return f"a newline on stderr before the end (progress redraws one line): {text[:300]!r}"
        text, erase, summary = text[:-1].rpartition("\r\033[K")
        if not erase or not PROGRESS_SUMMARY.fullmatch(summary):
            return f"the last line is not a summary after an erase: {summary!r}"
    lines = []
    for piece in text.split("\r"):
        if not piece:
            continue
        if not piece.startswith("\033[K"):
            return f"a redraw does not erase the line first: {piece[:120]!r}"
        line = piece[len("\033[K"):]
        if not line:
            continue  # the final erase
        if not line.startswith("rmgsort: "):
            return f"not a progress line: {line[:120]!r}"
        if len(line) > PROGRESS_COLUMNS:
            return f"a line of {len(line)} columns: {line!r}"
        for done, total in re.findall(r"\[(\d+)/(\d+) rounds\]", line):
            if int(done) > int(total):
                return f"more rounds done than planned: {line!r}"
        lines.append(line)
    if not lines:
        return "no progress line drawn"
    for want in wants:
        if want == "summary":
            found = summary is not None
        elif want.startswith("phase:"):
            found = any(line.startswith("rmgsort: " + want[6:]) for line in lines)
        elif want in PROGRESS_WANTS:
            found = any(PROGRESS_WANTS[want].search(line) for line in lines)
        else:
            return f"unknown progress want {want!r}"
        if not found:
            return f"no line shows {want}; lines: {lines[-3:]!r}"
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
    checks = {"stats": check_stats, "progress": check_progress}  # each returns why it fails, or ""
    if command in checks:
        why = checks[command](argv[2], argv[3:])
        if why:
            print(why)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
