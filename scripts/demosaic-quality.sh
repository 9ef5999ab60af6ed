#!/usr/bin/env bash
# Demosaic quality: generated scenes with a known ideal rendering (lightwork-tools make-sample-dng: photo-like
# scenes 1-3 and the chart with its zone plate, 6 MP, D65, the default sensor noise) rendered neutrally (as-shot
# balance, linear tone, sRGB, 16-bit TIFF) by each of LightWork's demosaics and by the peers that are installed:
# rawtherapee-cli (its neutral profile with AMaZE, and with its RCD) and darktable-cli (no workflow defaults:
# no filmic or exposure, legacy white balance; its default demosaic), both given the DNG's BaselineExposure
# (read by exiftool) as their exposure, which LightWork applies and they do not. lightwork-tools demosaic-quality compares
# each render with the ideal: mean CIEDE2000, false colour and zipper on edges (Sources/LightWorkTools/DemosaicQuality.swift).
# Peers are for comparison only, never a dependency: a missing one is named and left out of the table.
# Usage: scripts/demosaic-quality.sh [CONFIG [OUTDIR]]   (release, demosaic-quality-out); make bench runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/darktable-history.sh
CONFIG=${1:-release}
OUT=${2:-demosaic-quality-out}
BIN=.build/$CONFIG/lightwork TOOLS=.build/$CONFIG/lightwork-tools
W=${DEMOSAIC_WIDTH:-3000} H=${DEMOSAIC_HEIGHT:-2000}
DEMOSAICS=${DEMOSAICS:-dual ahd rcd}
rm -rf "$OUT"; mkdir -p "$OUT"
SCENES="photo:1 photo:2 photo:3 chart:1"

PEERS=""
if ! command -v exiftool >/dev/null; then
  echo "  (exiftool not installed: peers left out, their exposure is read with it)"
else
  if command -v rawtherapee-cli >/dev/null; then PEERS="$PEERS rt-amaze rt-rcd"; else echo "  (rawtherapee-cli not installed: left out)"; fi
  if command -v darktable-cli >/dev/null; then PEERS="$PEERS dt"; else echo "  (darktable-cli not installed: left out)"; fi
fi

# peer_settings DNG: RawTherapee profiles and a darktable history with the DNG's BaselineExposure as exposure.
peer_settings() {
  local ev; ev=$(exiftool -s3 -n -BaselineExposure "$1"); ev=${ev:-0}
  for m in amaze rcd; do printf '[Exposure]\nCompensation=%s\n[RAW Bayer]\nMethod=%s\n' "$ev" "$m" > "$OUT/rt-$m.pp3"; done
  # darktable's exposure module, version 6: mode 0 (manual), black 0, exposure EV, deflicker 50 % / -4 EV, no bias.
  local params; params=$(python3 -c "import struct, sys; print(struct.pack('<iffffi', 0, 0.0, float(sys.argv[1]), 50.0, -4.0, 0).hex())" "$ev")
  darktable_history exposure 6 "$params" > "$OUT/dt.xmp"
}

# render NAME DNG TIF: one candidate's neutral 16-bit sRGB TIFF of DNG.
render() {
  local name=$1 dng=$2 tif=$3
  case $name in
    rt-*) rawtherapee-cli -q -Y -t -b16 -o "$tif" -p "$OUT/$name.pp3" -c "$dng" >/dev/null 2>&1 ;;
    dt) darktable-cli "$dng" "$OUT/dt.xmp" "$tif" --core --configdir "$OUT/dt-conf" --library :memory: \
          --conf plugins/darkroom/workflow=none --conf plugins/darkroom/chromatic-adaptation=legacy \
          --conf plugins/imageio/format/tiff/bpp=16 --conf plugins/imageio/format/tiff/compress=0 >/dev/null 2>&1 ;;
    *) local d="$OUT/lw-$name-$(basename "${dng%.dng}")"
       "$BIN" convert "$dng" -o "$d" --demosaic "$name" --tone linear --format tiff16 --quiet >/dev/null
       mv "$d/$(basename "${dng%.dng}").tif" "$tif" ;;
  esac
}

CANDIDATES="$DEMOSAICS$PEERS"
printf "  %-22s" "mean ΔE00 / false colour / zipper"
for c in $CANDIDATES; do printf " %18s" "$c"; done; echo
for s in $SCENES; do
  kind=${s%:*} seed=${s#*:} base="$OUT/$kind-$seed"
  "$TOOLS" make-sample-dng -o "$base.dng" --scene "$kind" --seed "$seed" --width $W --height $H 2>/dev/null
  [ -z "$PEERS" ] || peer_settings "$base.dng"
  files=""
  for c in $CANDIDATES; do render "$c" "$base.dng" "$base-$c.tif"; files="$files $base-$c.tif"; done
  label=$([ "$kind" = photo ] && echo "photo-like scene $seed" || echo "chart with zone plate")
  printf "  %-22s" "$label"
  # shellcheck disable=SC2086
  "$TOOLS" demosaic-quality --scene "$kind" --seed "$seed" --width $W --height $H $files |
    awk '{ printf " %6.2f %5.2f %5.2f", $3, $5, $7 } END { print "" }'
done
echo "  (lower is better; ΔE00 per pixel against the ideal, false colour = chroma error and zipper = L* error"
echo "   alternating along edges, on edge pixels; a 16-pixel frame left out; $((W * H / 1000000)) MP scenes)"
