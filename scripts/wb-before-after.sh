#!/bin/sh
# docs/images/wb-before-after.png: the photo-like scene lit by tungsten (CIE A), developed with the camera set to
# daylight (left) and with --wb auto (right); docs/images/exposure-auto-before-after.png: the scene 2 stops
# underexposed (left) and with --exposure auto (right). 484 px wide. Run from the package root after a release build.
set -eu
tools=.build/release/lightwork-tools
lw=.build/release/lightwork
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tools" make-sample-dng -o "$tmp/photo.dng" --scene photo --illuminant A --width 960 --height 640 --seed 1 2>/dev/null
for wb in daylight auto; do
    "$lw" convert "$tmp/photo.dng" -o "$tmp/$wb" --format png --long-edge 240 --wb "$wb" >/dev/null 2>&1
done
python3 scripts/png-side-by-side.py "$tmp/daylight/photo.png" "$tmp/auto/photo.png" docs/images/wb-before-after.png
"$tools" make-sample-dng -o "$tmp/dark.dng" --scene photo --width 960 --height 640 --seed 1 --underexpose 2 2>/dev/null
for ev in 0 auto; do
    "$lw" convert "$tmp/dark.dng" -o "$tmp/ev-$ev" --format png --long-edge 240 --exposure "$ev" >/dev/null 2>&1
done
python3 scripts/png-side-by-side.py "$tmp/ev-0/dark.png" "$tmp/ev-auto/dark.png" docs/images/exposure-auto-before-after.png
echo "wrote docs/images/wb-before-after.png, docs/images/exposure-auto-before-after.png"
