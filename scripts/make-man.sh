#!/usr/bin/env bash
# Usage: make-man.sh LIGHTWORK_BINARY OUTDIR — lightwork(1) and lightwork-COMMAND(1) for every command,
# made by help2man from the binary's own --help (so a page is never out of step with the options).
set -euo pipefail
bin=$(readlink -f "$1"); out=$2
mkdir -p "$out"
version=$("$bin" --version | head -1 | awk '{print $2}')
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
common=(--no-info --no-discard-stderr --version-string="$version" --source="LightWork $version" --manual="LightWork manual")
# lightwork(1): the top-level usage.
help2man "${common[@]}" --name="RAW development batch pipeline" --output="$out/lightwork.1" "$bin"
# One page per command, through a wrapper named like the page (help2man runs "PROGRAM --help").
"$bin" completion list | while IFS=$'\t' read -r name summary; do
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$bin" "$name" > "$work/lightwork-$name"
  chmod +x "$work/lightwork-$name"
  help2man "${common[@]}" --name="$summary" --output="$out/lightwork-$name.1" "$work/lightwork-$name"
done
