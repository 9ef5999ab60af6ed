#!/usr/bin/env bash
# Builds LightWork's libFuzzer targets (AddressSanitizer, in .build/fuzz so the normal build is untouched)
# and runs each for a set time, one process per target, starting from the seed corpus in Fuzz/corpus/.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]        default: 60 s each, every target
#   FUZZ_JOBS=2 scripts/fuzz.sh 300 recipe       more libFuzzer workers for one long run
#
# New interesting inputs go to .build/fuzz/corpus/TARGET (not committed); a crash, leak or time-out stops
# that target, leaves the input in .build/fuzz/crashes/TARGET/ and makes the script exit 1 after the other
# targets ran. Reproduce one with: LIGHTWORK_FUZZ_TARGET=T .build/fuzz/release/LightWorkFuzz FILE
# A crash found here is fixed and kept as a regression test (Tests/LightWorkTests/FuzzRegressionTests.swift).
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
all=(cube lut-image lut-file catalog recipe manifest entitlements exif icc jpeg png avif jxl worker-reply file-completeness webp heif ljpeg)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")

# Exactly these flags (see PLATFORM-NOTES): one --sanitize for SwiftPM's link step, one -sanitize= for swiftc
# (a second one would silently replace the first and drop coverage), fuzzer-no-link for the C shims.
build() {
  swift build -c release --product LightWorkFuzz --scratch-path .build/fuzz \
    --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address \
    -Xswiftc -DLIGHTWORK_FUZZ -Xswiftc -enable-testing
}
started=$(date +%s)
if ! build >.build/fuzz-build.log 2>&1; then
  cat .build/fuzz-build.log >&2
  echo "fuzz: the sanitized build failed" >&2
  exit 1
fi
echo "fuzz: sanitized build $(( $(date +%s) - started )) s"
bin=.build/fuzz/release/LightWorkFuzz

max_len() {
  case "$1" in
    recipe|entitlements) echo 2048 ;;
    cube|lut-image|exif|worker-reply) echo 4096 ;;
    catalog|manifest|camera-profile) echo 16384 ;;
    *) echo 8192 ;;
  esac
}
dict() {
  case "$1" in
    recipe|catalog|manifest|entitlements|worker-reply) echo "-dict=Fuzz/dict/json.dict" ;;
    cube) echo "-dict=Fuzz/dict/cube.dict" ;;
    *) echo "" ;;
  esac
}

# libFuzzer's -jobs writes fuzz-N.log files of its own in the current folder (ignored by git): only when asked.
parallel=""
[ "${FUZZ_JOBS:-1}" -gt 1 ] && parallel="-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS"

failed=()
for t in "${targets[@]}"; do
  seeds=Fuzz/corpus/$t
  work=.build/fuzz/corpus/$t
  crashes=.build/fuzz/crashes/$t
  mkdir -p "$work" "$crashes"
  [ -d "$seeds" ] || { echo "fuzz: no seed corpus $seeds" >&2; failed+=("$t"); continue; }
  log=.build/fuzz/$t.log
  # SWIFT_BACKTRACE=enable=no: a crash must end the process, not hang in Swift's backtracer.
  LIGHTWORK_FUZZ_TARGET=$t SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions=Fuzz/lsan.supp:print_suppressions=0 \
    "$bin" -max_total_time="$seconds" -use_value_profile=1 -max_len="$(max_len "$t")" $(dict "$t") \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $parallel \
    -artifact_prefix="$crashes/" "$work" "$seeds" >"$log" 2>&1
  status=$?
  runs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  cov=$(grep -aoE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  if [ $status -eq 0 ]; then
    printf 'fuzz: %-13s ok       %8s runs, coverage %s edges, %s s\n' "$t" "${runs:-?}" "${cov:-?}" "$seconds"
  else
    printf 'fuzz: %-13s FAILED   (exit %d) — input in %s, log %s\n' "$t" "$status" "$crashes" "$log"
    grep -aE 'ERROR|Fatal error|SUMMARY|panic|Test unit written' "$log" | head -8 | sed 's/^/      /'
    failed+=("$t")
  fi
done
echo "fuzz: $(( $(date +%s) - started )) s in all"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failing targets: ${failed[*]}" >&2
  exit 1
fi
