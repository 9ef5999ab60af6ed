#!/usr/bin/env bash
# make bench: LightWork against dcraw_emu (Debian libraw-bin) on the same generated files, in one run.
# Prints wall time, MP/s and peak RSS for each case and LightWork's speed as a ratio of the reference.
set -euo pipefail
CONFIG=${1:-release}
SECTION=${2:-all}   # all; batch for the batch sections only; scale for the batch-scaling section only; single, demosaic, unpack, profile, xtrans or monitor for its own
SCALE_COUNTS=${BENCH_SCALE_COUNTS:-1000 10000 100000}
BIN=.build/$CONFIG/lightwork
TOOLS=.build/$CONFIG/lightwork-tools
DIR=bench-out
rm -rf "$DIR"; mkdir -p "$DIR/in" "$DIR/ref"

# ---------------------------------------------------------------------------------------------------------
# The studio monitor (watch --serve): 200 files dropped into a watched inbox, with 50 browsers streaming its
# events, against the same watch without the server. Each side runs twice, alternating; the best of each counts.
monitor_bench() {
echo
echo "Studio monitor: 200 files (1200x800 DNG) through a watch, 50 event streams vs no server"
mkdir -p "$DIR/monitor-src"
for i in $(seq 1 200); do "$TOOLS" make-sample-dng -o "$DIR/monitor-src/m$i.dng" --seed "$i" --width 1200 --height 800 >/dev/null 2>&1; done
best() { python3 -c "import json,sys; print(max(json.load(open(f))['filesPerSecond'] for f in sys.argv[1:]))" "$@"; }
for round in 1 2; do
  python3 scripts/monitor-load.py "$BIN" "$DIR/monitor-src" "$DIR/monitor-work" "$DIR/monitor-plain-$round.json" | sed 's/^/  /'
  python3 scripts/monitor-load.py "$BIN" "$DIR/monitor-src" "$DIR/monitor-work" "$DIR/monitor-served-$round.json" --serve --clients 50 | sed 's/^/  /'
done
PLAIN=$(best "$DIR"/monitor-plain-*.json); SERVED=$(best "$DIR"/monitor-served-*.json)
printf "  rate with the monitor / without: %.3f (%s vs %s files/s; target >= 0.90)\n" "$(awk "BEGIN{print $SERVED/$PLAIN}")" "$SERVED" "$PLAIN"
rm -rf "$DIR/monitor-work"
}
if [ "$SECTION" = monitor ]; then monitor_bench; exit 0; fi

W=6000; H=4000; MP=$(awk "BEGIN{print $W*$H/1e6}")
if [ "$SECTION" = all ] || [ "$SECTION" = demosaic ]; then
echo
echo "Demosaic quality: generated scenes against their ideal rendering, LightWork's demosaics beside the peers installed"
scripts/demosaic-quality.sh "$CONFIG" "$DIR/demosaic"
# The kernels on noise (dual's worst case: texture in every tile) and on a 24 MP photo-like scene's mosaic.
"$TOOLS" make-sample-dng -o "$DIR/in/demosaic-photo.dng" --scene photo --seed 3 --width 6000 --height 4000 >/dev/null
"$TOOLS" bench --only demosaic --raw "$DIR/in/demosaic-photo.dng" | sed 's/^/  /'
rm -f "$DIR/in/demosaic-photo.dng"
[ "$SECTION" = demosaic ] && exit 0
fi

if [ "$SECTION" = all ] || [ "$SECTION" = unpack ]; then
echo
echo "Unpack of one ${MP} MP DNG (lossless JPEG in 256x256 tiles and in one strip; uncompressed): LightWork's loaders against LibRaw's"
"$TOOLS" make-bench-dng -o "$DIR/in/bench-ljpeg-tiles.dng" --width $W --height $H --seed 1 --compression ljpeg --ljpeg tile=256x256 >/dev/null
"$TOOLS" make-bench-dng -o "$DIR/in/bench-ljpeg-strip.dng" --width $W --height $H --seed 1 --compression ljpeg --ljpeg strip >/dev/null
"$TOOLS" make-bench-dng -o "$DIR/in/bench-uncompressed.dng" --width $W --height $H --seed 1 >/dev/null
"$TOOLS" bench --only unpack --raw "$DIR/in/bench-ljpeg-tiles.dng" --raw "$DIR/in/bench-ljpeg-strip.dng" --raw "$DIR/in/bench-uncompressed.dng" | sed 's/^/  /'
rm -f "$DIR/in/bench-ljpeg-tiles.dng" "$DIR/in/bench-ljpeg-strip.dng" "$DIR/in/bench-uncompressed.dng"
[ "$SECTION" = unpack ] && exit 0
fi

if [ "$SECTION" != scale ]; then
echo "Generating a ${W}x${H} DNG (${MP} MP) ..."
"$TOOLS" make-bench-dng -o "$DIR/in/bench.dng" --width $W --height $H --seed 1 >/dev/null
fi

# run LABEL CMD...: wall seconds and peak RSS (MiB) of one command, via GNU time.
run() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/stderr.txt" || { echo "$label failed:"; cat "$DIR/stderr.txt"; exit 1; }
  read -r secs kib < "$DIR/time.txt"
  LAST_SECS=$secs
  LAST_KIB=$kib
  printf "  %-44s %7.2f s  %7.1f MP/s  peak RSS %6.0f MiB\n" "$label" "$secs" "$(awk "BEGIN{print $MP/$secs}")" "$(awk "BEGIN{print $kib/1024}")"
}

if [ "$SECTION" = all ] || [ "$SECTION" = single ]; then
echo
echo "One ${MP} MP DNG -> output (dual demosaic, the default; camera white balance, sRGB)"
cp "$DIR/in/bench.dng" "$DIR/ref/bench.dng"
# The 16-bit TIFF against dcraw_emu three times each, alternating, the best of each counting: on a virtual machine
# that hands freed memory back to its host, a process's first touch of fresh memory costs from nothing to ~4 ms
# a 2 MiB page, whichever ran last (docs/performance.md), so one run of each measures that lottery as much as them.
REF=999; T1=999
for round in 1 2 3; do
  run "dcraw_emu -T -4 -o 1 -w -c 0 (reference), run $round" dcraw_emu -T -4 -o 1 -w -c 0 "$DIR/ref/bench.dng"
  REF=$(awk "BEGIN{print ($LAST_SECS < $REF) ? $LAST_SECS : $REF}")
  rm -rf "$DIR/tiff"
  run "lightwork 16-bit TIFF, uncompressed, run $round" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/tiff" --quiet
  T1=$(awk "BEGIN{print ($LAST_SECS < $T1) ? $LAST_SECS : $T1}")
done
printf "  best of 3: dcraw_emu %.2f s, lightwork 16-bit TIFF %.2f s: %.2fx (target >= 2.5x)\n" "$REF" "$T1" "$(awk "BEGIN{print $REF/$T1}")"
run "lightwork 16-bit TIFF, --wb auto (its estimate's cost)" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/tiff-wb" --wb auto --quiet
run "lightwork 16-bit TIFF, deflate" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/deflate" --compression deflate --quiet
T2=$LAST_SECS
run "lightwork 8-bit JPEG q92" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/jpeg" --format jpeg --quiet
T3=$LAST_SECS
printf "  ratio (best dcraw_emu time / lightwork time): TIFF %.2fx (best of 3), deflate %.2fx, JPEG %.2fx  (>= 1 is as fast or faster)\n" \
  "$(awk "BEGIN{print $REF/$T1}")" "$(awk "BEGIN{print $REF/$T2}")" "$(awk "BEGIN{print $REF/$T3}")"
echo "  targets: 16-bit TIFF >= 2.5x dcraw_emu for one image; peak RSS under 600 MiB"
run "lightwork 16-bit TIFF, --demosaic ahd" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/tiff-ahd" --demosaic ahd --quiet
printf "  ratio dcraw_emu / lightwork --demosaic ahd: %.2fx\n" "$(awk "BEGIN{print $REF/$LAST_SECS}")"
rm -rf "$DIR/tiff-ahd" "$DIR/tiff-wb" "$DIR/deflate"
[ "$SECTION" = single ] && exit 0

echo
echo "One 96 MP DNG (12000x8000, uncompressed) -> 16-bit TIFF: time against dcraw_emu, and peak RSS in bytes per pixel"
"$TOOLS" make-bench-dng -o "$DIR/in/big.dng" --width 12000 --height 8000 --seed 1 >/dev/null
cp "$DIR/in/big.dng" "$DIR/ref/big.dng"
BIGMP=96
run_big() { MP=$BIGMP run "$@"; }
run_big "dcraw_emu -T -4 -o 1 -w -c 0 (reference)" dcraw_emu -T -4 -o 1 -w -c 0 "$DIR/ref/big.dng"
REFBIG=$LAST_SECS; REFBIGKIB=$LAST_KIB
run_big "lightwork 16-bit TIFF" "$BIN" convert "$DIR/in/big.dng" -o "$DIR/big" --quiet
printf "  ratio dcraw_emu / lightwork: %.2fx; peak RSS %.1f bytes a pixel (dcraw_emu %.1f; target <= 12)\n" \
  "$(awk "BEGIN{print $REFBIG/$LAST_SECS}")" "$(awk "BEGIN{print $LAST_KIB*1024/96e6}")" "$(awk "BEGIN{print $REFBIGKIB*1024/96e6}")"
rm -rf "$DIR/in/big.dng" "$DIR/ref/big.dng" "$DIR/ref/big.tiff" "$DIR/big"

echo
echo "Encoding that ${MP} MP render (its 16-bit TIFF) in each output format, default options and each flag on: seconds and MB"
"$TOOLS" bench --only encode --image "$DIR/tiff/bench.tif" | sed 's/^/  /'
fi

if [ "$SECTION" = all ] || [ "$SECTION" = xtrans ]; then
echo
echo "One ${MP} MP X-Trans DNG (Fujifilm's 6x6 layout, 256x256 lossless-JPEG tiles) -> 16-bit TIFF: LightWork's X-Trans demosaic against LibRaw's processing"
"$TOOLS" make-sample-dng -o "$DIR/in/xtrans.dng" --cfa XTRANS --width $W --height $H --seed 1 --compression ljpeg --ljpeg tile=256x256 >/dev/null
cp "$DIR/in/xtrans.dng" "$DIR/ref/xtrans.dng"
run "dcraw_emu -T -4 -o 1 -w (Markesteijn, 3 passes)" dcraw_emu -T -4 -o 1 -w -c 0 "$DIR/ref/xtrans.dng"
REF=$LAST_SECS
run "dcraw_emu -q 2 -T -4 -o 1 -w (1 pass)" dcraw_emu -q 2 -T -4 -o 1 -w -c 0 "$DIR/ref/xtrans.dng"
REF1=$LAST_SECS
run "lightwork --demosaic libraw-ahd (LibRaw's 3 passes)" "$BIN" convert "$DIR/in/xtrans.dng" -o "$DIR/xtrans-libraw" --demosaic libraw-ahd --quiet
run "lightwork (its own X-Trans demosaic)" "$BIN" convert "$DIR/in/xtrans.dng" -o "$DIR/xtrans" --quiet
printf "  ratio dcraw_emu / lightwork: %.2fx against 3 passes (target >= 3x), %.2fx against 1 pass\n" \
  "$(awk "BEGIN{print $REF/$LAST_SECS}")" "$(awk "BEGIN{print $REF1/$LAST_SECS}")"
rm -rf "$DIR/in/xtrans.dng" "$DIR/ref/xtrans.dng" "$DIR/ref/xtrans.tiff" "$DIR/xtrans" "$DIR/xtrans-libraw"
[ "$SECTION" = xtrans ] && exit 0
fi

if [ "$SECTION" = all ]; then
echo
echo "Web formats: one ${MP} MP DNG -> AVIF (libavif + aom, default quality and speed) and JPEG XL (libjxl, default distance and effort), all cores"
# size FORMAT OUTDIR: the written file's size in MB.
size() { printf "  %-44s %7.2f MB\n" "$1 file size" "$(awk "BEGIN{print $(stat -c %s "$2"/bench.*)/1e6}")"; }
run "lightwork 8-bit AVIF (quality 60, speed 6)" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/avif" --format avif --quiet
size "AVIF" "$DIR/avif"
run "lightwork 10-bit AVIF (quality 60, speed 6)" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/avif10" --format avif10 --quiet
size "AVIF 10-bit" "$DIR/avif10"
run "lightwork 8-bit JPEG XL (distance 1, effort 7)" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/jxl" --format jxl --quiet
size "JPEG XL" "$DIR/jxl"
run "lightwork 16-bit JPEG XL lossless (effort 7)" "$BIN" convert "$DIR/in/bench.dng" -o "$DIR/jxl16" --format jxl16 --lossless --quiet
size "JPEG XL 16-bit lossless" "$DIR/jxl16"
fi

if [ "$SECTION" = all ] || [ "$SECTION" = profile ]; then
echo
echo "Where one 24 MP lossless-JPEG DNG's CPU time goes (perf samples, one thread; docs/performance.md)"
"$TOOLS" make-sample-dng -o "$DIR/in/profile.dng" --width $W --height $H --scene photo --compression ljpeg --ljpeg tile=256x256 --seed 3 >/dev/null
if perf record -q -e cpu-clock -o "$DIR/perf-probe.data" true >/dev/null 2>&1; then
  echo "  film recipe -> 16-bit TIFF:"
  python3 scripts/profile-file.py "$BIN" "$DIR/in/profile.dng" --recipe Samples/recipes/harbour-evening.json --format tiff16 | sed 's/^/  /'
else
  echo "  perf cannot sample here (perf_event_paranoid or no perf): profile left out"
fi
rm -f "$DIR/perf-probe.data"
[ "$SECTION" = profile ] && exit 0
fi

if [ "$SECTION" != scale ]; then
echo
echo "One ${MP} MP JPEG (made from the DNG above) -> output, through LittleCMS into device RGB"
"$BIN" convert "$DIR/in/bench.dng" -o "$DIR/jpeg-in" --format jpeg --quality 95 --quiet >/dev/null
mkdir -p "$DIR/rgb"; mv "$DIR/jpeg-in/bench.jpg" "$DIR/rgb/bench.jpg"
run "lightwork JPEG -> 8-bit JPEG q92" "$BIN" convert "$DIR/rgb/bench.jpg" -o "$DIR/rgb-jpeg" --format jpeg --quiet
run "lightwork JPEG -> 16-bit TIFF" "$BIN" convert "$DIR/rgb/bench.jpg" -o "$DIR/rgb-tiff" --quiet

echo
echo "Develop: --highlights reconstruct against clip, per ${MP} MP decode (the bench DNG clips nowhere; the highlight scene's bands do)"
"$TOOLS" make-highlight-dng -o "$DIR/in/highlights.dng" --truth "$DIR/in/highlights-truth.dng" --width $W --height $H 2>/dev/null
"$TOOLS" bench --only highlights --raw "$DIR/in/bench.dng" --raw "$DIR/in/highlights.dng" | sed 's/^/  /'

echo
echo "The full filter chain on a 24 MP working image (every filter non-zero, a film at 80 %), decode and encode excluded"
"$TOOLS" bench --only chain | sed 's/^/  /'

echo
echo "Develop: sharpening and geometry modules, each alone on a 24 MP linear image"
"$TOOLS" bench --only develop-geometry | sed 's/^/  /'

echo "The develop stage on a 24 MP image: each module at a typical setting, then every module on (two threads)"
"$TOOLS" bench --only develop --threads 2 | sed 's/^/  /'

# ---------------------------------------------------------------------------------------------------------
# Batch: 8 different 24 MP lossless-JPEG DNGs (256 x 256 tiles, as camera makers' and Adobe's writers store them)
# -> 16-bit TIFF through the full film chain (a recipe) and neutrally, LightWork's worker processes
# (--jobs = cores) beside dcraw_emu run two at a time over the same files (no film chain).
# Peak RSS is of the whole process tree (parent plus workers, or both dcraw_emu), sampled from /proc.
N=8
echo
echo "Batch: $N different ${MP} MP lossless-JPEG DNGs -> 16-bit TIFF ($(nproc) cores)"
mkdir -p "$DIR/batch" "$DIR/batch-ref"
for i in $(seq 1 $N); do
  "$TOOLS" make-bench-dng -o "$DIR/batch/frame-$i.dng" --width $W --height $H --seed $i --compression ljpeg --ljpeg tile=256x256 2>/dev/null
  cp "$DIR/batch/frame-$i.dng" "$DIR/batch-ref/frame-$i.dng"
done

# tree_run LABEL CMD...: wall seconds, CPU seconds (user + system, of CMD and every process it waited for)
# and the peak summed RSS (KiB) of CMD's process tree, sampled from /proc every 50 ms. CPU time is the
# fairer figure on a machine that other work shares.
tree_run() {
  local label=$1; shift
  local pid peak=0 sum secs user sys
  /usr/bin/time -f "%e %U %S" -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/stderr.txt" &
  pid=$!
  while [ -e /proc/$pid ] && [ "$(awk '/^State/{print $2}' /proc/$pid/status 2>/dev/null)" != "Z" ]; do
    sum=$(ps -e -o pid=,ppid=,rss= | awk -v root=$pid '{ up[$1] = $2; rss[$1] = $3 }
      END { for (p in up) { q = p; while (q != root && (q in up) && q > 1) q = up[q]; if (q == root) s += rss[p] } print s + 0 }')
    (( sum > peak )) && peak=$sum
    sleep 0.05
  done
  wait $pid || { echo "$label failed:"; cat "$DIR/stderr.txt"; exit 1; }
  read -r secs user sys < "$DIR/time.txt"
  LAST_SECS=$secs
  LAST_CPU=$(awk "BEGIN{print $user+$sys}")
  printf "  %-46s %6.1f s  %5.2f images/min  CPU %5.1f s/image  peak RSS (all processes) %5.0f MiB\n" "$label" "$secs" \
    "$(awk "BEGIN{print $N*60/$secs}")" "$(awk "BEGIN{print $LAST_CPU/$N}")" "$(awk "BEGIN{print $peak/1024}")"
}

# dcraw_emu, two processes at a time (each decode single-threaded, as LightWork's are).
tree_run "dcraw_emu -T -4 -o 1 -w, 2 at a time (reference)" \
  sh -c "ls '$DIR'/batch-ref/*.dng | OMP_NUM_THREADS=1 xargs -P2 -n1 dcraw_emu -T -4 -o 1 -w -c 0"
REFB=$LAST_SECS; REFC=$LAST_CPU
tree_run "lightwork film recipe -> tiff16, --jobs $(nproc)" "$BIN" convert "$DIR/batch" -o "$DIR/batch-out" \
  --recipe Samples/recipes/harbour-evening.json --format tiff16 --quiet
LWB=$LAST_SECS; LWC=$LAST_CPU
printf "  ratio dcraw_emu / lightwork film: wall time %.2fx, CPU time %.2fx  (target >= 2.0x)\n" \
  "$(awk "BEGIN{print $REFB/$LWB}")" "$(awk "BEGIN{print $REFC/$LWC}")"
tree_run "lightwork neutral -> tiff16, --jobs $(nproc)" "$BIN" convert "$DIR/batch" -o "$DIR/batch-neutral" \
  --recipe Samples/recipes/neutral.json --format tiff16 --quiet
printf "  ratio dcraw_emu / lightwork neutral: wall time %.2fx, CPU time %.2fx  (target >= 2.5x)\n" \
  "$(awk "BEGIN{print $REFB/$LAST_SECS}")" "$(awk "BEGIN{print $REFC/$LAST_CPU}")"
s=$(date +%s.%N); "$BIN" convert "$DIR/batch" -o "$DIR/batch-out" --recipe Samples/recipes/harbour-evening.json \
  --format tiff16 --quiet >/dev/null 2>&1; e=$(date +%s.%N)
printf "  re-run of the same command (everything skipped): %.2f s = %.1f %% of converting them  (target < 5 %%)\n" \
  "$(awk "BEGIN{print $e-$s}")" "$(awk "BEGIN{print 100*($e-$s)/$LWB}")"
fi

# ---------------------------------------------------------------------------------------------------------
# Batch scaling: N tiny PNGs (16x16, each of its own colours, 1,000 to a subfolder) -> JPEG, N = 1,000 to
# 100,000: the cost of each file beyond its pixels (planning, scheduling, workers, manifest), per file, and
# the parent's peak RSS (GNU time's %M: the largest of the process and its workers). The inputs are made
# first and left 2 s, so their mtimes are settled and the no-op re-run trusts every stat (FileSignature).
echo
echo "Batch scaling: tiny 16x16 PNGs -> JPEG ($(nproc) cores; wall time, and CPU time of all processes)"
# scale_run N LABEL CMD...: sets S_SECS, S_CPU (user + system, workers included) and S_KIB.
scale_run() {
  local label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/stderr.txt" || { echo "$label failed:"; tail -5 "$DIR/stderr.txt"; exit 1; }
  read -r S_SECS user sys S_KIB < "$DIR/time.txt"
  S_CPU=$(awk "BEGIN{print $user+$sys}")
}
FIRST_MS=""; FIRST_KIB=""
for n in $SCALE_COUNTS; do
  "$TOOLS" make-tiny-pngs -o "$DIR/tiny-$n" --count "$n" --size 16
  sleep 2.1
  scale_run "convert $n" "$BIN" convert "$DIR/tiny-$n" -o "$DIR/tiny-$n-out" --format jpeg --quiet
  ms=$(awk "BEGIN{print 1000*$S_SECS/$n}"); cpu=$(awk "BEGIN{print 1000*$S_CPU/$n}"); kib=$S_KIB
  scale_run "re-run $n" "$BIN" convert "$DIR/tiny-$n" -o "$DIR/tiny-$n-out" --format jpeg --quiet
  printf "  %7d files: %6.2f ms/file (CPU %5.2f ms/file)  peak RSS %5.0f MiB  no-op re-run %6.2f s (%.3f ms/file, CPU %.2f s, peak RSS %.0f MiB)\n" \
    "$n" "$ms" "$cpu" "$(awk "BEGIN{print $kib/1024}")" "$S_SECS" "$(awk "BEGIN{print 1000*$S_SECS/$n}")" "$S_CPU" "$(awk "BEGIN{print $S_KIB/1024}")"
  [ -z "$FIRST_MS" ] && { FIRST_MS=$ms; FIRST_CPU=$cpu; FIRST_KIB=$kib; FIRST_N=$n; }
  LAST_MS=$ms; LAST_CPU_MS=$cpu; LAST_KIB=$kib; LAST_N=$n
  rm -rf "$DIR/tiny-$n" "$DIR/tiny-$n-out"
done
printf "  per-file cost at %d / at %d files: wall %.2fx, CPU %.2fx (target <= 1.2x); peak RSS %.2fx (target: flat)\n" \
  "$LAST_N" "$FIRST_N" "$(awk "BEGIN{print $LAST_MS/$FIRST_MS}")" "$(awk "BEGIN{print $LAST_CPU_MS/$FIRST_CPU}")" "$(awk "BEGIN{print $LAST_KIB/$FIRST_KIB}")"

# ---------------------------------------------------------------------------------------------------------
# The ledger: `manifest merge` of the ledgers 100 shard tasks of 1,000 files each leave (docs/batch.md).
echo
echo "Ledger: manifest merge of 100 shards x 1,000 entries"
"$TOOLS" make-shard-ledgers -o "$DIR/merge" --shards 100 --entries 1000 2>/dev/null
/usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$BIN" manifest merge "$DIR/merge" --shards 100 -o "$DIR/merge/manifest.json" \
  >/dev/null 2>"$DIR/stderr.txt" || { echo "manifest merge failed:"; cat "$DIR/stderr.txt"; exit 1; }
read -r secs kib < "$DIR/time.txt"
printf "  %-46s %6.2f s  peak RSS %5.0f MiB  (%d entries merged)\n" "lightwork manifest merge, 100 x 1,000 entries" "$secs" \
  "$(awk "BEGIN{print $kib/1024}")" "$(grep -c '"relativePath"' "$DIR/merge/manifest.json")"
# Recording into the ledger: an entry's cost at 1,000 and at 100,000 entries (checkpoints of 256; target: flat).
"$TOOLS" ledger-recording-cost -o "$DIR/recording" --entries 100000 | sed 's/^/  /' || { echo "ledger-recording-cost failed"; exit 1; }
rm -rf "$DIR/recording"

[ "$SECTION" = all ] && monitor_bench
exit 0
