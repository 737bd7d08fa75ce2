#!/usr/bin/env python3
"""Independent reference for the records cases of generate_test.sh and check_test.sh.

A record file is R-byte records, each holding a key of TYPE at byte offset K: u32 u64 i32 i64 f32 f64
(little-endian numbers) or bytes:N (N bytes compared as unsigned bytes: Python's bytes order). The
order is computed here from values: integers by value; floats -inf < ... < -0.0 < +0.0 < ... < +inf,
then every NaN, all equal; descending reverses the numbers and keeps the NaNs last. The checksum and
the generator's payload are written from their documented definitions (README.md, generate --help),
not from rmgsort's code.

  record_files.py write TYPE R K FILE VALUE...   one record per VALUE (keys.py's VALUE for numbers,
                                                 hex digits for bytes:N); each record's other bytes
                                                 are its position (u64 little-endian) repeated
  record_files.py scan TYPE R K FILE asc|desc    prints "RECORDS FIRST_DISORDER DUPLICATE_KEYS"
                                                 (FIRST_DISORDER: - when in order)
  record_files.py checksum R FILE                prints the whole-record checksum (32 hex digits)
  record_files.py keys TYPE R K FILE OUT         writes the keys alone to OUT
  record_files.py payload-index TYPE R K FILE SEED
                                                 exit 0 when every record's payload starts with its
                                                 index and goes on with the seed's filler (or, for
                                                 bytes:10 in 100-byte records, has gensort's layout)
  record_files.py shuffle R IN OUT SEED          OUT: IN's records in a random order
  record_files.py swap-keys TYPE R K IN OUT I J  OUT: IN with the keys of records I and J exchanged
                                                 (their payloads stay)
  record_files.py poke FILE OFFSET BYTE          sets one byte of FILE
"""
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keys as keys_py  # noqa: E402  (parse_value: min, max, nan, -0.0, bits:0x...)

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
DRAW_GAMMA = 0xD1B54A32D192ED03


def key_width(type_name):
    if type_name.startswith("bytes:"):
        return int(type_name[6:])
    return keys_py.width(type_name)


def read_records(path, size):
    data = open(path, "rb").read()
    if len(data) % size:
        raise SystemExit(f"{path}: {len(data)} bytes are not a whole number of {size}-byte records")
    return [data[i:i + size] for i in range(0, len(data), size)]


def order_key(type_name, key, descending):
    """A tuple that sorts in the check's order; NaNs all equal, last in both directions."""
    if type_name.startswith("bytes:"):
        return (0, bytes(255 - b for b in key) if descending else key)
    value = struct.unpack("<" + keys_py.FORMATS[type_name], key)[0]
    if keys_py.is_float(type_name):
        if math.isnan(value):
            return (1, 0, 0)
        sign = math.copysign(1.0, value)  # -0.0 before +0.0
        return (0, -value, -sign) if descending else (0, value, sign)
    return (0, -value if descending else value)


def scan(type_name, size, offset, path, order):
    records = read_records(path, size)
    width = key_width(type_name)
    keys = [order_key(type_name, r[offset:offset + width], order == "desc") for r in records]
    first = next((i for i in range(1, len(keys)) if keys[i] < keys[i - 1]), "-")
    duplicates = sum(1 for i in range(1, len(keys)) if keys[i] == keys[i - 1])
    return f"{len(records)} {first} {duplicates}"


def mix_a(x):  # splitmix64's finaliser after its increment
    x = (x + GOLDEN) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def mix_b(x):  # moremur after a constant
    x ^= 0x2545F4914F6CDD1D
    x = ((x ^ (x >> 27)) * 0x3C79AC492BA7B653) & MASK
    x = ((x ^ (x >> 33)) * 0x1C69B3F74AC4AE35) & MASK
    return x ^ (x >> 27)


def checksum(size, path):
    """Sum over the records of two hashes: the record's 64-bit little-endian words (the last zero-padded)
    chained as x = mix(x) ^ word, then mixed once more; high sum then low sum in hex."""
    low = high = 0
    for record in read_records(path, size):
        words = [int.from_bytes(record[j:j + 8], "little") for j in range(0, size, 8)]
        a = b = words[0]
        for word in words[1:]:
            a = mix_a(a) ^ word
            b = mix_b(b) ^ word
        low = (low + mix_a(a)) & MASK
        high = (high + mix_b(b)) & MASK
    return f"{high:016x}{low:016x}"


def mix13(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def moremur(x):
    x = ((x ^ (x >> 27)) * 0x3C79AC492BA7B653) & MASK
    x = ((x ^ (x >> 33)) * 0x1C69B3F74AC4AE35) & MASK
    return x ^ (x >> 27)


def payload_draws(seed, index):
    """The payload stream's draws for a record: splitmix64's second output for the seed is the stream;
    draw 0 is splitmix64's output at counter INDEX of it, draw d > 0 moremur(draw 0 + d * gamma)."""
    stream = mix13((seed + 2 * GOLDEN) & MASK)
    first = mix13((stream + index * GOLDEN) & MASK)
    d = 0
    while True:
        yield first if d == 0 else moremur((first + d * DRAW_GAMMA) & MASK)
        d += 1


def payload_index(type_name, size, offset, path, seed):
    """None when every record's payload is as documented, else the first difference."""
    width = key_width(type_name)
    gensort = type_name == "bytes:10" and size == 100 and offset == 0
    for i, record in enumerate(read_records(path, size)):
        draws = payload_draws(seed, i)
        if gensort:
            filler = "".join(c * 4 for c in f"{next(draws) & 0xFFFFFFFFFFFF:012X}")
            want = (b"\x00\x11" + f"{i:032X}".encode() + bytes([0x88, 0x99, 0xAA, 0xBB]) + filler.encode() +
                    bytes([0xCC, 0xDD, 0xEE, 0xFF]))
            got = record[10:]
        else:
            got = record[:offset] + record[offset + width:]
            stream = struct.pack("<Q", i) + b"".join(struct.pack("<Q", next(draws)) for _ in range(len(got) // 8))
            want = stream[:len(got)]
        if got != want:
            return f"record {i}: payload {got.hex()}, expected {want.hex()}"
    return None


def write(type_name, size, offset, path, values):
    width = key_width(type_name)
    with open(path, "wb") as f:
        for position, text in enumerate(values):
            if type_name.startswith("bytes:"):
                key = bytes.fromhex(text)
                if len(key) != width:
                    raise SystemExit(f"{text}: not {width} bytes")
            else:
                key = keys_py.parse_value(type_name, text)
            filler = (struct.pack("<Q", position) * (size // 8 + 1))[:size]
            f.write(filler[:offset] + key + filler[offset + width:])


def main(argv):
    command, args = argv[1], argv[2:]
    if command == "write":
        write(args[0], int(args[1]), int(args[2]), args[3], args[4:])
    elif command == "scan":
        print(scan(args[0], int(args[1]), int(args[2]), args[3], args[4]))
    elif command == "checksum":
        print(checksum(int(args[0]), args[1]))
    elif command == "keys":
        width, offset = key_width(args[0]), int(args[2])
        with open(args[4], "wb") as f:
            f.write(b"".join(r[offset:offset + width] for r in read_records(args[3], int(args[1]))))
    elif command == "payload-index":
        why = payload_index(args[0], int(args[1]), int(args[2]), args[3], int(args[4]))
        if why:
            print(why)
            return 1
    elif command == "shuffle":
        records = read_records(args[1], int(args[0]))
        random.Random(int(args[3])).shuffle(records)
        open(args[2], "wb").write(b"".join(records))
    elif command == "swap-keys":
        type_name, size, offset = args[0], int(args[1]), int(args[2])
        width, i, j = key_width(type_name), int(args[5]), int(args[6])
        records = [bytearray(r) for r in read_records(args[3], size)]
        records[i][offset:offset + width], records[j][offset:offset + width] = \
            records[j][offset:offset + width], records[i][offset:offset + width]
        open(args[4], "wb").write(b"".join(records))
    elif command == "poke":
        with open(args[0], "r+b") as f:
            f.seek(int(args[1]))
            f.write(bytes([int(args[2], 0)]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
