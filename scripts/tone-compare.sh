#!/usr/bin/env bash
# LightWork's --tone settings beside the peers' default renders of the shared photographs (issue #22 item 7).
# Prints each file's mean grey (mean R, G, B sample of the 8-bit sRGB PNG) for LightWork linear / standard / filmic,
# darktable-cli's default and rawtherapee-cli's default profile, and writes a contact sheet, one row per photograph
# in that order: docs/images/tone-compare.png.
#   scripts/tone-compare.sh [SAMPLES_DIR]      (default ../shared/samples/raw; needs a release build)
# The peers (Debian darktable, rawtherapee) are for comparison only, never used by LightWork; each runs with its own
# throw-away configuration folder, so a user's settings or library never change the figures.
set -euo pipefail
SAMPLES=${1:-../shared/samples/raw}
CONFIG=${CONFIG:-release}
BIN=.build/$CONFIG/lightwork
TOOLS=.build/$CONFIG/lightwork-tools
OUT=${OUT:-tone-compare-out}
SHEET=${SHEET:-docs/images/tone-compare.png}
FILES=(canon-powershot-g2.crw canon-eos-d30.crw)
TONES=(linear standard filmic)
for tool in darktable-cli rawtherapee-cli; do
  command -v $tool >/dev/null || { echo "tone-compare: $tool is missing (apt-get install darktable rawtherapee)" >&2; exit 1; }
done
rm -rf "$OUT"; mkdir -p "$OUT/tiles" "$OUT/dt-config" "$OUT/rt-home"
tiles=()
printf "%-24s %8s %8s %8s %10s %12s\n" "mean grey (0..255)" linear standard filmic darktable rawtherapee
for f in "${FILES[@]}"; do
  in="$SAMPLES/$f"; stem=${f%.*}
  [ -f "$in" ] || { echo "tone-compare: $in is missing" >&2; exit 1; }
  row=()
  for tone in "${TONES[@]}"; do
    "$BIN" convert "$in" -o "$OUT/lw-$tone" --tone $tone --format png --quiet >/dev/null
    row+=("$OUT/lw-$tone/$stem.png")
  done
  darktable-cli "$in" "$OUT/dt/$stem.png" --core --configdir "$OUT/dt-config" --library :memory: >"$OUT/dt.log" 2>&1 \
    || { echo "tone-compare: darktable-cli failed on $in:"; cat "$OUT/dt.log"; exit 1; } >&2
  row+=("$OUT/dt/$stem.png")
  mkdir -p "$OUT/rt"
  HOME="$OUT/rt-home" rawtherapee-cli -o "$OUT/rt/$stem.png" -n -b8 -d -Y -c "$in" >"$OUT/rt.log" 2>&1 \
    || { echo "tone-compare: rawtherapee-cli failed on $in:"; cat "$OUT/rt.log"; exit 1; } >&2
  row+=("$OUT/rt/$stem.png")
  greys=()
  for png in "${row[@]}"; do greys+=("$("$TOOLS" image-stats "$png" | awk '{print $NF}')"); done
  printf "%-24s %8s %8s %8s %10s %12s\n" "$f" "${greys[@]}"
  # Tiles at 240 px on the long edge, through LightWork's own resize (the peers' PNGs on the RGB path, neutral).
  i=0
  for png in "${row[@]}"; do
    i=$((i+1))
    "$BIN" convert "$png" -o "$OUT/tiles/$stem-$i" --long-edge 240 --format png --quiet >/dev/null
    tiles+=("$(ls "$OUT/tiles/$stem-$i"/*.png)")
  done
done
mkdir -p "$(dirname "$SHEET")"
"$TOOLS" contact-sheet -o "$SHEET" --columns 5 --tile 240:180 "${tiles[@]}"
echo "columns: LightWork linear, standard, filmic, darktable-cli default, rawtherapee-cli default"
