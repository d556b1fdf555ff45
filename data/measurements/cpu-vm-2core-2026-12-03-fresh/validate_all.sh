#!/bin/bash
# What ran here: the issue's grid with the profile calibrate wrote, from the calibration's folder.
exec "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)/scripts/validate_grid.sh" calibrate_profile.json
