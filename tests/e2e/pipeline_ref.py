#!/usr/bin/env python3
"""Independent numpy reference for several inputs and --unique (tests/e2e/several_inputs_test.sh,
tests/e2e/unique_test.sh).

The inputs are concatenated in the order given; the order is records_ref.py's (numpy's stable argsort
of a rank computed from the key values). --unique keeps the first record of each run of equal keys
in that order: keys equal by their bytes, except that for records (any layout but a bare number key)
every NaN key equals every other; bare float keys (NaNs ordered by bit pattern) keep one NaN of each
bit pattern, the first in input order (compared as a multiset, as records_ref.py compares the NaN
tail). --index-output holds the kept records' positions in the concatenation.

  pipeline_ref.py check [--unique] [--desc] (--raw TYPE R K | --npy [--key FIELD]) OUTPUT INDEX INPUT...
      OUTPUT and INDEX: files, or '-' when absent. Raw: OUTPUT is raw records, INDEX raw <u8. .npy:
      OUTPUT a .npy array of the inputs' dtype, shape (kept,), its header the bytes np.save writes;
      INDEX a .npy array of <u8. Prints why and exits 1 when the files are not the reference's.
"""
import argparse
import io
import os
import sys
import tempfile

import numpy as np
import numpy.lib.format as npy_format

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npy_sort_ref  # noqa: E402
import records_ref  # noqa: E402


def first_of_runs(records, perm, nan, type_name, offset, bare):
    """The positions in PERM kept by --unique (in output order), and how many of them are NaN keys."""
    n = perm.size
    if n == 0:
        return perm, 0
    keys = records_ref.key_bytes(records[perm], type_name, offset)
    sorted_nan = nan[perm]
    if not bare:
        # Every NaN equals every other: one identity for all of them.
        keys = np.where(sorted_nan[:, None], 0, keys)
        identity = np.concatenate([sorted_nan[:, None].astype(np.uint8), keys], axis=1)
        keep = np.ones(n, dtype=bool)
        keep[1:] = (identity[1:] != identity[:-1]).any(axis=1)
        return perm[keep], int(sorted_nan[keep].sum())
    # Bare keys: the numbers by neighbours (equal values have equal bytes, -0.0 and +0.0 apart); the
    # NaN tail (in input order here) one per bit pattern, its first.
    head = n - int(sorted_nan.sum())
    keep = np.ones(head, dtype=bool)
    keep[1:] = (keys[1:head] != keys[:head - 1]).any(axis=1)
    patterns = keys[head:].view(f"V{keys.shape[1]}").reshape(-1)
    _, first = np.unique(patterns, return_index=True)
    tail = perm[head:][np.sort(first)]
    return np.concatenate([perm[:head][keep], tail]), int(tail.size)


def expected_order(records, type_name, offset, order, unique):
    """(positions of the output records in the input, NaN keys among them at the end, bare)."""
    perm, nan = records_ref.reference(records, type_name, offset, order)
    bare = records_ref.is_bare(type_name, records.shape[1], offset)
    if unique:
        kept, nans = first_of_runs(records, perm, nan, type_name, offset, bare)
    else:
        kept, nans = perm, int(nan.sum())
    return kept, nans, bare


def compare_index(index_path, kept, records, got, bare_nans):
    """None when INDEX_PATH holds the positions KEPT; the last BARE_NANS (bare NaN keys, in bit-pattern
    order there) as a set, and gathering the output's records."""
    index = np.fromfile(index_path, dtype="<u8")
    if index.size * 8 != os.path.getsize(index_path) or index.size != kept.size:
        return f"index {index_path}: {os.path.getsize(index_path)} bytes, expected {8 * kept.size}"
    head = kept.size - bare_nans
    differs = np.flatnonzero(index[:head] != kept[:head])
    if differs.size:
        i = differs[0]
        return f"index {index_path}: position {i} holds {index[i]}, the reference gives {kept[i]}"
    tail = index[head:]
    if not np.array_equal(np.sort(tail), np.sort(kept[head:])):
        return f"index {index_path}: the NaN tail is not the first position of each NaN bit pattern"
    if got is not None and not np.array_equal(records[tail], got[head:]):
        return f"index {index_path}: the NaN tail does not gather the output's NaNs"
    return None


def compare(records, kept, nans, bare, type_name, offset, got, index_path):
    if got is not None:
        why = records_ref.compare_records(got, records[kept], type_name, offset, nans if bare else 0)
        if why:
            return why
    if index_path is None:
        return None
    return compare_index(index_path, kept, records, got, nans if bare else 0)


def check_raw(args):
    type_name, r, k = args.raw[0], int(args.raw[1]), int(args.raw[2])
    parts = [records_ref.read_records(path, r) for path in args.inputs]
    records = np.concatenate(parts) if parts else np.zeros((0, r), dtype=np.uint8)
    kept, nans, bare = expected_order(records, type_name, k, args.order, args.unique)
    got = None if args.output == "-" else records_ref.read_records(args.output, r)
    return compare(records, kept, nans, bare, type_name, k, got, None if args.index == "-" else args.index)


def saved_bytes(array, version):
    written = io.BytesIO()
    if version == 3:
        npy_format.write_array(written, array, version=(3, 0))
    else:
        np.save(written, array)
    return written.getvalue()


def check_npy(args):
    arrays = [np.load(path) for path in args.inputs]
    dtype = arrays[0].dtype
    for path, a in zip(args.inputs, arrays):
        if a.dtype != dtype:
            return f"{path}: the reference takes inputs of one dtype ({a.dtype}, not {dtype})"
    # Joined as bytes: np.concatenate would pack a structured dtype's padding away.
    records = np.concatenate([npy_sort_ref.as_records(a) for a in arrays])
    type_name, offset = npy_sort_ref.key_of(dtype, args.key)
    kept, nans, bare = expected_order(records, type_name, offset, args.order, args.unique)
    got = None
    if args.output != "-":
        b = np.load(args.output)
        if b.dtype != dtype or b.shape != (kept.size,):
            return f"{args.output}: {b.dtype} {b.shape}, expected {dtype} ({kept.size},)"
        version = open(args.inputs[0], "rb").read(7)[6]
        if open(args.output, "rb").read() != saved_bytes(b, version):
            return f"{args.output}: not the bytes numpy writes for its array (header layout)"
        got = npy_sort_ref.as_records(b)
    index_path = None
    if args.index != "-":
        index = np.load(args.index)
        if index.dtype != np.dtype("<u8") or index.shape != (kept.size,):
            return f"{args.index}: {index.dtype} {index.shape}, expected uint64 ({kept.size},)"
        if open(args.index, "rb").read() != saved_bytes(index, 1):
            return f"{args.index}: not the bytes numpy writes for its array (header layout)"
        raw = tempfile.NamedTemporaryFile(suffix=".idx", delete=False)
        raw.write(index.tobytes())
        raw.close()
        index_path = raw.name
    try:
        return compare(records, kept, nans, bare, type_name, offset, got, index_path)
    finally:
        if index_path:
            os.unlink(index_path)


def main(argv):
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("command", choices=["check"])
    parser.add_argument("--unique", action="store_true")
    parser.add_argument("--desc", dest="order", action="store_const", const="desc", default="asc")
    parser.add_argument("--raw", nargs=3, metavar=("TYPE", "R", "K"))
    parser.add_argument("--npy", action="store_true")
    parser.add_argument("--key", default="-")
    parser.add_argument("output")
    parser.add_argument("index")
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args(argv[1:])
    if bool(args.raw) == args.npy:
        parser.error("give one of --raw TYPE R K and --npy")
    try:
        why = check_npy(args) if args.npy else check_raw(args)
    except (OSError, ValueError) as e:
        why = str(e)
    if why:
        print(why)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
