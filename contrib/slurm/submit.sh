#!/usr/bin/env bash
# Submits a folder conversion as an N-task Slurm job array plus a merge job that runs once every task has
# succeeded (--dependency=afterok), and prints the two job ids ("ARRAY_ID MERGE_ID").
#
#   LIGHTWORK=/shared/bin/lightwork contrib/slurm/submit.sh 4 /data/shoot /data/export [convert options...]
#
# Extra sbatch options (partition, account, time limit, CPUs per task) go in SBATCH_ARRAY_OPTIONS and
# SBATCH_MERGE_OPTIONS, e.g. SBATCH_ARRAY_OPTIONS="--partition=cpu --cpus-per-task=8 --time=2:00:00".
# Paths are made absolute, so the jobs do not depend on the folder they start in; their logs
# (lightwork-ARRAY_TASK.out, lightwork-merge-ID.out) go to the folder this is run from, as sbatch's do.
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 N INPUT OUTDIR [convert options...]" >&2
  exit 2
fi
shards=$1 input=$2 output=$3
shift 3
case $shards in ''|*[!0-9]*) echo "$0: N must be a whole number, not '$shards'" >&2; exit 2 ;; esac
[ "$shards" -ge 1 ] || { echo "$0: N must be at least 1" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
input=$(realpath -m -- "$input")
output=$(realpath -m -- "$output")
mkdir -p -- "$output"
# The tasks may start elsewhere: pin LIGHTWORK to an absolute path (a bare name is looked up on PATH).
if [ -n "${LIGHTWORK:-}" ]; then
  case $LIGHTWORK in */*) LIGHTWORK=$(realpath -- "$LIGHTWORK") ;; *) LIGHTWORK=$(command -v -- "$LIGHTWORK") ;; esac
  export LIGHTWORK
fi

# shellcheck disable=SC2086  # the options variables are lists of words
array=$(sbatch --parsable --array="0-$((shards - 1))" ${SBATCH_ARRAY_OPTIONS:-} \
        "$here/lightwork-array.sbatch" "$shards" "$input" "$output" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable --dependency="afterok:$array" ${SBATCH_MERGE_OPTIONS:-} \
        "$here/lightwork-merge.sbatch" "$shards" "$output")
merge=${merge%%;*}
echo "$array $merge"
