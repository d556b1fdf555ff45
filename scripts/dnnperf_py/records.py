"""Measurement records in dnnperf's format (docs/measurement-format.md), written one flushed line
at a time so that an interrupted run keeps everything it measured, and resumable."""
import datetime
import json
import os
import socket
import statistics

from . import machine

SCHEMA = "dnnperf.measurements/1"


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def key(record):
    return (record["op"], record["algorithm"], record["dtype"], json.dumps(record["params"], sort_keys=True),
            json.dumps(record["layout"], sort_keys=True))


def ok_records(path, program):
    """The measured records of a file (type record, status ok), with their line numbers; a file
    missing or a line that is not JSON ends the program with a message naming file and line."""
    try:
        f = open(path)
    except FileNotFoundError:
        raise SystemExit(f"{program}: {path}: no such file")
    except OSError as e:
        raise SystemExit(f"{program}: {path}: {e.strerror}")
    with f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                raise SystemExit(f"{program}: {path}:{line_no}: not valid JSON ({e})")
            if isinstance(r, dict) and r.get("type") == "record" and r.get("status") == "ok":
                yield line_no, r


def timing(samples):
    s = sorted(samples)
    return {"median": statistics.median(s), "min": s[0], "max": s[-1],
            "stddev": statistics.stdev(s) if len(s) > 1 else 0.0}


def whole_lines(path):
    """The JSON lines of a file an interrupted run may have left: what follows its last newline (a
    line that run was writing) is cut off in place, by one truncate and never by rewriting the
    file, so that a run killed here too loses nothing already written. A line before it that is not
    JSON ends the program with a message naming file and line."""
    with open(path, "rb") as f:
        data = f.read()
    whole = data.rfind(b"\n") + 1
    lines = []
    for i, line in enumerate(data[:whole].split(b"\n")[:-1]):
        if not line.strip():
            continue
        try:
            lines.append(json.loads(line))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise SystemExit(f"{path}:{i + 1}: not a JSON line; not a measurement file")
    if whole < len(data):
        os.truncate(path, whole)
    return lines


class RecordWriter:
    """Appends records to `path`; refuses to overwrite unless resuming, and drops a torn last line."""

    def __init__(self, path, resume, libraries):
        self.path = path
        self.done = set()
        if os.path.exists(path) and os.path.getsize(path) > 0:
            if not resume:
                raise SystemExit(f"{path}: exists already; pass --resume to continue it, or choose another output")
            for j in whole_lines(path):
                if isinstance(j, dict) and j.get("type") == "record":
                    self.done.add(key(j))
        self.file = open(path, "a")
        self._write({"type": "context", "schema": SCHEMA, "host": socket.gethostname(), "date": utc_now(),
                     "tool": "dnnperf torch backend", "build": "python", "libraries": libraries, "cpu": machine.cpu()})

    def _write(self, obj):
        self.file.write(json.dumps(obj) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def write(self, record):
        record = dict(record, type="record")
        self._write(record)
        self.done.add(key(record))
