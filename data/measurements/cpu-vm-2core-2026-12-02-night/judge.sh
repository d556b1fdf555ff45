#!/bin/bash
# judge.sh PROFILE OUTDIR: the grid runs kept here (or in repeat/, run from there), priced by PROFILE; no runs.
exec bash "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)/data/measurements/cpu-vm-2core-2026-12-02-late/judge_new.sh" "$@"
