#!/usr/bin/env bash
# The before/after PNGs of docs/develop.md's sharpening and crop/straighten sections, made with lightwork itself
# from a real photograph (the Canon EOS D30 tree of the shared samples, or the RAW given as $1).
# Usage: scripts/develop-images.sh [RAW] (after `swift build -c release`).
set -euo pipefail
RAW=${1:-../shared/samples/raw/canon-eos-d30.crw}
BIN=${BIN:-.build/release/lightwork}
OUT=docs/images
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
stem=$(basename "${RAW%.*}")

# shot NAME ARGS...: converts RAW to an 8-bit PNG with ARGS and stores it as docs/images/NAME.png.
shot() {
  local name=$1; shift
  "$BIN" convert "$RAW" -o "$TMP/$name" --format png --quiet "$@"
  mv "$TMP/$name/$stem.png" "$OUT/$name.png"
}

# Sharpening at 100 %: a 480 px wide region of the full-size frame (crop fractions of the 2160×1440 frame).
REGION="0.42,0.3,0.2222,0.2222"
shot sharpen-before --crop "$REGION"
shot sharpen-after --crop "$REGION" --sharpen 1.2:0.8
# Straighten and crop, downscaled to 480 px wide.
shot geometry-before --long-edge 480
shot geometry-after --long-edge 480 --rotate -3 --crop 0.05,0.05,0.9,0.9 --aspect 4:5
ls -l "$OUT"/sharpen-*.png "$OUT"/geometry-*.png
