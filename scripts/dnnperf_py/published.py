"""What the scripts holding dnnperf against published figures share (scripts/compare_*.py):
reading a table of published runs and pricing one run with `dnnperf ... --json`."""
import json
import subprocess


def load_rows(path, rows_key, required):
    """The table in `path` and its list `rows_key`, every row holding the `required` fields; a
    missing one ends the script naming the file, the row and the field."""
    with open(path) as f:
        table = json.load(f)
    rows = table.get(rows_key)
    if not isinstance(rows, list):
        raise SystemExit(f"{path}: '{rows_key}' must be a list of rows")
    for i, row in enumerate(rows):
        for key in required:
            if key not in row:
                raise SystemExit(f"{path}: {rows_key}[{i}]: missing '{key}'")
    return table, rows


def dnnperf_json(cmd, refused_ok=False):
    """The JSON `cmd` (a dnnperf command ending in --json) prints. With `refused_ok`, a run dnnperf
    refuses as an input it cannot use (exit 1: a plan this shape does not allow) gives None; any
    other failure ends the script with the command and its message."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    if refused_ok and out.returncode == 1:
        return None
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


# A published run's settings and the `dnnperf predict` options that say them.
RUN_OPTIONS = (("seq", "--seq"), ("optimizer", "--optimizer"), ("allreduce", "--allreduce"), ("bucket_mib", "--bucket-mib"), ("sync", "--sync"))


def run_flags(settings, accumulate=1):
    """The `dnnperf predict` options of a run's `settings` (seq, optimizer, fused_optimizer,
    allreduce, bucket_mib, sync: those it gives) and its `accumulate` micro-batches a step."""
    flags = []
    for key, option in RUN_OPTIONS:
        if settings.get(key) is not None:
            flags += [option, str(settings[key])]
    if settings.get("fused_optimizer"):
        flags.append("--fused-optimizer")
    if accumulate > 1:
        flags += ["--accumulate", str(accumulate)]
    return flags
