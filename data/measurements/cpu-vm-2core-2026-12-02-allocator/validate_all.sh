#!/bin/bash
# The issue's grid on the new allocator policy, run in the calibration's folder (/tmp/s25 that evening):
# seven networks at 64x64 and Inception-v3 at 128x128 (the commands now live in scripts/validate_grid.sh).
cd /tmp/s25 && exec "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)/scripts/validate_grid.sh" calibrate_profile.json
