#!/usr/bin/env python3
"""What --progress lines and --progress json wrote to a captured stderr, checked for the end-to-end
tests (the terminal's redrawn line is keys.py progress's).

  progress_log.py lines FILE [WANT...]  every line ends in a newline, holds no carriage return and no
                                        escape, and is "rmgsort: PHASE [D/T rounds] BYTES[/TOTAL
                                        (P%)] RATE/s" followed by " ETA TIME" or nothing while the
                                        phase runs, by ", done in TIME" on its last line; or, last
                                        and only there, the summary line.
  progress_log.py json FILE [WANT...]   every line is one JSON object (json.loads, the text UTF-8):
                                        a phase's, with exactly its members, of their types, in
                                        order; or, last and only there, the summary's, "phase":
                                        "done", or a failed run's, "phase": "failed", followed by
                                        the error's line, "rmgsort: " and that object's
                                        description (the one line that is no JSON).
                                        elapsed_seconds never decreases.

  WANT (lines)  phase:TEXT  a line of phase TEXT (its whole name)     done:TEXT  that phase's last line
                running:TEXT=N  N lines of phase TEXT while it ran (not its last)
                percent:TEXT  a line of phase TEXT shows a percentage   rate:TEXT  ... a rate
                bytes:TEXT  ... a byte count                            rounds  a line shows rounds
                summary:VERB  the summary says VERB ("sorted")          no-summary  there is none
                lines=N  N lines in all
  WANT (json)   phase:KIND  an object of that kind ("reading")          done:KIND  that kind's last object
                description:TEXT  an object whose description is TEXT    rounds  an object in rounds
                total-unknown:KIND  an object of that kind with bytes_total null
                NAME=VALUE  the summary's member (bytes=800024, engine=cpu)
                no-summary  there is none                               objects=N  N objects in all
                failed=N  the run failed with exit status N              no-failure  it did not
"""
import json
import re
import sys

from keys import PROGRESS_SUMMARY, SIZE

TIME = r"(\d+\.\d\ds|\d+s|\d+m\d\ds|\d+h\d\dm)"
LINE = re.compile(r"rmgsort: (?P<phase>.+?)(?P<rounds> \[(?P<rounds_done>\d+)/(?P<rounds_total>\d+) rounds\])?"
                  r"(?P<bytes> " + SIZE + r"(?P<total>/" + SIZE + r" \((?P<percent>\d+)%\))?)?"
                  r"(?P<rate> " + SIZE + r"/s)?(?P<end> ETA " + TIME + r"|, done in " + TIME + r")?")
PHASE_MEMBERS = ["phase", "description", "finished", "bytes_done", "bytes_total", "bytes_per_second", "eta_seconds",
                 "phase_seconds", "elapsed_seconds", "rounds_done", "rounds_total"]
SUMMARY_MEMBERS = ["phase", "description", "bytes", "elapsed_seconds", "bytes_per_second", "engine"]
FAILURE_MEMBERS = ["phase", "description", "exit_status", "elapsed_seconds"]


def read_lines(path):
    """The lines of PATH (UTF-8), or the reason they are not lines."""
    text = open(path, "rb").read().decode("utf-8")
    if not text.endswith("\n"):
        return None, f"the last line does not end in a newline: {text[-200:]!r}"
    if "\r" in text or "\033" in text:
        return None, f"a carriage return or an escape: {text[:300]!r}"
    return text[:-1].split("\n"), None


def parse_lines(lines):
    """(phase lines as match objects, the summary line or None), or the reason."""
    parsed, summary = [], None
    for i, line in enumerate(lines):
        if PROGRESS_SUMMARY.fullmatch(line):
            if i != len(lines) - 1:
                return None, None, f"a summary line before the last: {line!r}"
            summary = line
            continue
        m = LINE.fullmatch(line)
        if not m:
            return None, None, f"not a progress line: {line!r}"
        if m["rounds"] and int(m["rounds_done"]) > int(m["rounds_total"]):
            return None, None, f"more rounds done than planned: {line!r}"
        parsed.append(m)
    return parsed, summary, None


def finished(m):
    return bool(m["end"]) and m["end"].startswith(", done in")


def check_lines(path, wants):
    lines, why = read_lines(path)
    if why:
        return why
    parsed, summary, why = parse_lines(lines)
    if why:
        return why
    for want in wants:
        kind, _, arg = want.partition(":")
        of = [m for m in parsed if m["phase"] == arg]
        if kind == "phase":
            ok = bool(of)
        elif kind == "done":
            ok = any(finished(m) for m in of)
        elif kind == "running":
            arg, _, count = arg.partition("=")
            ok = sum(1 for m in parsed if m["phase"] == arg and not finished(m)) == int(count)
        elif kind in ("percent", "rate", "bytes"):
            ok = any(m[kind] for m in of)
        elif want == "rounds":
            ok = any(m["rounds"] for m in parsed)
        elif kind == "summary":
            ok = summary is not None and summary.startswith(f"rmgsort: {arg} ")
        elif want == "no-summary":
            ok = summary is None
        elif want.startswith("lines="):
            ok = len(lines) == int(want[6:])
        else:
            return f"unknown want {want!r}"
        if not ok:
            return f"no {want}; lines: {lines!r}"
    return None


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def check_phase_object(o):
    """The reason the phase object O is not one, or None."""
    if list(o) != PHASE_MEMBERS:
        return f"members {list(o)}, expected {PHASE_MEMBERS}"
    if not isinstance(o["phase"], str) or not o["description"].startswith(o["phase"]):
        return "phase is not the description's first word"
    if not isinstance(o["finished"], bool) or not isinstance(o["bytes_done"], int):
        return "finished or bytes_done of the wrong type"
    total = o["bytes_total"]
    if total is not None and (not isinstance(total, int) or total <= 0 or o["bytes_done"] > total):
        return "bytes_total neither null nor at least bytes_done"
    if not all(number(o[k]) for k in ("bytes_per_second", "phase_seconds", "elapsed_seconds")):
        return "a rate or time that is no number >= 0"
    if o["eta_seconds"] is not None and (o["finished"] or total is None or not number(o["eta_seconds"])):
        return "an ETA for a finished phase or an unknown total"
    rounds = (o["rounds_done"], o["rounds_total"])
    if rounds != (None, None) and not (isinstance(rounds[0], int) and isinstance(rounds[1], int)
                                       and 0 <= rounds[0] <= rounds[1] and rounds[1] > 0):
        return "rounds neither both null nor 0 <= done <= total"
    return None


def check_json(path, wants):
    lines, why = read_lines(path)
    if why:
        return why
    error_line = lines.pop() if lines and lines[-1].startswith("rmgsort: ") else None
    objects = []
    for line in lines:
        try:
            objects.append(json.loads(line))
        except ValueError as e:
            return f"a line that is not JSON ({e}): {line!r}"
    summary = failure = None
    elapsed = 0.0
    for i, o in enumerate(objects):
        if not isinstance(o, dict):
            return f"not an object: {o!r}"
        if o.get("phase") == "failed":
            if i != len(objects) - 1:
                return f"a failed object before the last: {o!r}"
            if list(o) != FAILURE_MEMBERS or not isinstance(o["exit_status"], int) or o["exit_status"] not in (1, 2):
                return f"not a failure object: {o!r}"
            if error_line != "rmgsort: " + o["description"]:
                return f"the failure object {o!r} is not followed by its error line but by {error_line!r}"
            failure = o
        elif o.get("phase") == "done":
            if i != len(objects) - 1:
                return f"a done object before the last: {o!r}"
            if list(o) != SUMMARY_MEMBERS or o["engine"] not in ("cpu", "gpu") or not isinstance(o["bytes"], int):
                return f"not a summary object: {o!r}"
            summary = o
        elif (why := check_phase_object(o)) is not None:
            return f"{why}: {o!r}"
        if o["elapsed_seconds"] + 0.002 < elapsed:
            return f"elapsed_seconds went back from {elapsed}: {o!r}"
        elapsed = o["elapsed_seconds"]
    if error_line is not None and failure is None:
        return f"an error line without a failure object before it: {error_line!r}"
    phases = [o for o in objects if o is not summary and o is not failure]
    for want in wants:
        kind, _, arg = want.partition(":")
        if kind == "phase":
            ok = any(o["phase"] == arg for o in phases)
        elif kind == "done":
            ok = any(o["phase"] == arg and o["finished"] for o in phases)
        elif kind == "description":
            ok = any(o["description"] == arg for o in phases)
        elif kind == "total-unknown":
            ok = any(o["phase"] == arg and o["bytes_total"] is None for o in phases)
        elif want == "rounds":
            ok = any(o["rounds_total"] is not None for o in phases)
        elif want == "no-summary":
            ok = summary is None
        elif want.startswith("failed="):
            ok = failure is not None and failure["exit_status"] == int(want[7:])
        elif want == "no-failure":
            ok = failure is None
        elif want.startswith("objects="):
            ok = len(objects) == int(want[8:])
        elif "=" in want:
            name, _, value = want.partition("=")
            ok = summary is not None and str(summary.get(name)) == value
        else:
            return f"unknown want {want!r}"
        if not ok:
            return f"no {want}; objects: {objects!r}"
    return None


def main(argv):
    checks = {"lines": check_lines, "json": check_json}
    if len(argv) < 3 or argv[1] not in checks:
        print(__doc__, file=sys.stderr)
        return 2
    why = checks[argv[1]](argv[2], argv[3:])
    if why:
        print(why)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
