"""The scripts' tests' one way to report: a line per check, and the exit status of them all."""
import sys

failures = 0


def check(name, ok, detail=""):
    """Prints ok or FAIL for `name` (with `detail` on failure) and counts failures."""
    global failures
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    failures += not ok


def finish():
    sys.exit(1 if failures else 0)
