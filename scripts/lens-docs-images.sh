#!/usr/bin/env bash
# docs/images/lens-before.png and lens-after.png: the generated grid through the Canon EF 20mm f/2.8 USM
# (lightwork-tools make-lens-grid-dng), converted with --lens off and --lens auto, 600 px wide.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin/lightwork-tools" make-lens-grid-dng -o "$work/grid.dng" >/dev/null
for mode in off auto; do
  "$bin/lightwork" convert "$work/grid.dng" -o "$work/$mode" --lens "$mode" --format png --long-edge 600 --strip-metadata -q >/dev/null
done
cp "$work/off/grid.png" docs/images/lens-before.png
cp "$work/auto/grid.png" docs/images/lens-after.png
ls -l docs/images/lens-before.png docs/images/lens-after.png
