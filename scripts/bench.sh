#!/usr/bin/env bash
# make bench: LightWork against dcraw_emu (Debian libraw-bin) on the same generated files, in one run.
# Prints wall time, MP/s and peak RSS for each case and LightWork's speed as a ratio of the reference.
set -euo pipefail
CONFIG=${1:-release}
BIN=.build/$CONFIG/lightwork
TOOLS=.build/$CONFIG/lightwork-tools
DIR=bench-out
rm -rf "$DIR"; mkdir -p "$DIR/in" "$DIR/ref"

W=6000; H=4000; MP=$(awk "BEGIN{print $W*$H/1e6}")
echo "Generating a ${W}x${H} DNG (${MP} MP) ..."
"$TOOLS" make-bench-dng -o "$DIR/in/bench.dng" --width $W --height $H --seed 1 >/dev/null

# run LABEL CMD...: wall seconds and peak RSS (MiB) of one command, via GNU time.
run() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/stderr.txt" || { echo "$label failed:"; cat "$DIR/stderr.txt"; exit 1; }
  read -r secs kib < "$DIR/time.txt"
  LAST_SECS=$secs
  printf "  %-44s %7.2f s  %7.1f MP/s  peak RSS %6.0f MiB\n" "$label" "$secs" "$(awk "BEGIN{print $MP/$secs}")" "$(awk "BEGIN{print $kib/1024}")"
}

echo
echo "One ${MP} MP DNG -> output (AHD demosaic, camera white balance, sRGB)"
cp "$DIR/in/bench.dng" "$DIR/ref/bench.dng"
run "dcraw_emu -T -4 -o 1 -w -c 0 (reference)" dcraw_emu -T -4 -o 1 -w -c 0 "$DIR/ref/bench.dng"
REF=$LAST_SECS
run "lightwork 16-bit TIFF, uncompressed" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/tiff" --quiet
T1=$LAST_SECS
run "lightwork 16-bit TIFF, deflate" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/deflate" --compression deflate --quiet
T2=$LAST_SECS
run "lightwork 8-bit JPEG q92" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/jpeg" --format jpeg --quiet
T3=$LAST_SECS
printf "  ratio (dcraw_emu time / lightwork time): TIFF %.2fx, deflate %.2fx, JPEG %.2fx  (>= 1 is as fast or faster)\n" \
  "$(awk "BEGIN{print $REF/$T1}")" "$(awk "BEGIN{print $REF/$T2}")" "$(awk "BEGIN{print $REF/$T3}")"
echo "  targets: not slower than dcraw_emu for one image; peak RSS under 600 MiB"

echo
echo "One ${MP} MP JPEG (made from the DNG above) -> output, through LittleCMS into device RGB"
"$BIN" convert "$DIR/in/bench.dng" -o "$DIR/jpeg-in" --format jpeg --quality 95 --quiet >/dev/null
mkdir -p "$DIR/rgb"; mv "$DIR/jpeg-in/bench.jpg" "$DIR/rgb/bench.jpg"
run "lightwork JPEG -> 8-bit JPEG q92" "$BIN" convert "$DIR/rgb/bench.jpg" -o "$DIR/rgb-jpeg" --format jpeg --quiet
run "lightwork JPEG -> 16-bit TIFF" "$BIN" convert "$DIR/rgb/bench.jpg" -o "$DIR/rgb-tiff" --quiet

echo
echo "The full filter chain on a 24 MP working image (every filter non-zero, a film at 80 %), decode and encode excluded"
"$TOOLS" bench-chain | sed 's/^/  /'
