#!/usr/bin/env bash
# Before/after images of every develop module for docs/develop.md: docs/images/develop-<module>.png, the input
# rendered without (left) and with (right) the module's example setting, 240 px cells (~500 px wide).
#   scripts/develop-gallery.sh [MODULE...]     (default: every module in the table; needs a release build)
# One line per module below: name | input | flags. A module whose flag `lightwork convert --help` does not list
# (not in this build) is skipped with a note; a module declared in Sources/LightWork/Develop (its descriptor's
# `flag:`) without a line here fails the script, so a new module cannot miss its picture.
set -euo pipefail
CONFIG=${CONFIG:-release}
BIN=.build/$CONFIG/lightwork
TOOLS=.build/$CONFIG/lightwork-tools
RAW=${RAW:-../shared/samples/raw}
OUT=${OUT:-develop-gallery-out}
IMAGES=${IMAGES:-docs/images}
TABLE="
exposure | $RAW/canon-eos-d30.crw      | --exposure +1
tone     | $RAW/canon-powershot-g2.crw | --tone standard
tone-filmic | $RAW/canon-powershot-g2.crw | --tone filmic
"
HELP=$("$BIN" convert --help 2>&1)
# The develop flags the modules declare (DevelopDescriptor's `flag:`).
declared=$(grep -ho 'flag: "[A-Za-z-]*"' Sources/LightWork/Develop/*.swift | sed 's/flag: "//; s/"//' | sort -u)
for flag in $declared; do
  grep -Eq "^\S+ *\| .*\| *--$flag( |$)" <<<"$(sed 's/^ *//' <<<"$TABLE")" \
    || { echo "develop-gallery: --$flag has no line in the table of $0: add one (name | input | flags)" >&2; exit 1; }
done
rm -rf "$OUT"; mkdir -p "$OUT" "$IMAGES"
while IFS='|' read -r name input flags; do
  name=$(echo $name); input=$(echo $input)
  [ -n "$name" ] || continue
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  flag=$(echo $flags | awk '{print $1}')
  if ! grep -q -- "$flag " <<<"$HELP"; then echo "develop-gallery: $name skipped ($flag is not in this build)"; continue; fi
  [ -f "$input" ] || { echo "develop-gallery: $input is missing" >&2; exit 1; }
  "$BIN" convert "$input" -o "$OUT/$name-before" --long-edge 240 --format png --quiet >/dev/null
  # shellcheck disable=SC2086
  "$BIN" convert "$input" -o "$OUT/$name-after" --long-edge 240 --format png --quiet $flags >/dev/null
  "$TOOLS" contact-sheet -o "$IMAGES/develop-$name.png" --columns 2 --tile 240:180 "$OUT/$name-before"/*.png "$OUT/$name-after"/*.png
done <<<"$TABLE"
