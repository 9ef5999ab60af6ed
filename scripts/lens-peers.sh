#!/usr/bin/env bash
# Lens correction beside the peers (issue #22): one grid DNG made through the Canon EF 20mm f/2.8 USM by lensfun
# (lightwork-tools make-lens-grid-dng), developed by LightWork (--lens off / auto), RawTherapee (lensfun auto:
# distortion, vignetting, CA) and darktable (its default, which does not correct lenses), each measured by
# lightwork-tools measure-lens-grid. Needs a release build, exiftool, rawtherapee and darktable (apt-get install
# rawtherapee darktable). Usage: scripts/lens-peers.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --show-bin-path)
work=${1:-/tmp/lightwork-lens-peers}
rm -rf "$work"; mkdir -p "$work"
"$bin/lightwork-tools" make-lens-grid-dng -o "$work/grid.dng"
measure() { printf '%-28s ' "$1"; "$bin/lightwork-tools" measure-lens-grid "$2" | sed 's/^[^:]*: //'; }

for mode in off auto; do
  "$bin/lightwork" convert "$work/grid.dng" -o "$work/lightwork-$mode" --format png16 --lens "$mode" -q >/dev/null
done
cat > "$work/rt-lens.pp3" <<'PP3'
[Version]
AppVersion=5.9
Version=349

[LensProfile]
LcMode=lfauto
UseDistortion=true
UseVignette=true
UseCA=true
PP3
if command -v rawtherapee-cli >/dev/null; then
  rawtherapee-cli -o "$work/rt-lens.png" -n -b16 -Y -d -p "$work/rt-lens.pp3" -c "$work/grid.dng" >"$work/rt.log" 2>&1
fi
if command -v darktable-cli >/dev/null; then
  darktable-cli "$work/grid.dng" "$work/dt-default.png" --core --configdir "$work/dt-config" \
    --conf plugins/imageio/format/png/bpp=16 >"$work/dt.log" 2>&1
fi

echo "straightness of the grid's lines (green: max, rms; red and blue: max; red-blue rms) and corner/centre level:"
measure "LightWork --lens off" "$work/lightwork-off/grid.png"
measure "LightWork --lens auto" "$work/lightwork-auto/grid.png"
[ -f "$work/rt-lens.png" ] && measure "rawtherapee-cli lensfun auto" "$work/rt-lens.png"
[ -f "$work/dt-default.png" ] && measure "darktable-cli default" "$work/dt-default.png"
exit 0
