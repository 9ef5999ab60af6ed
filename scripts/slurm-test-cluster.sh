#!/usr/bin/env bash
# A throw-away single-node Slurm cluster on this machine, for the integration tests (and for trying the
# contrib/slurm scripts by hand): munged with a key of its own, slurmctld and slurmd with a configuration,
# state, spool, logs and ports of their own, all under DIR. No systemd, no cgroups, no accounting.
#
#   scripts/slurm-test-cluster.sh start DIR   start the daemons; prints the SLURM_CONF to export; exit 0 once
#                                             the node is idle (a failed start stops whatever it started)
#   scripts/slurm-test-cluster.sh stop DIR    cancel the jobs, stop the daemons and the job processes this
#                                             cluster started (by pid file and by the DIR marker in their
#                                             environment, never by name); safe to run twice
#
# Needs root (slurmd runs jobs as the submitting user) and the Debian packages slurm-wlm and munge
# (scripts/ensure-deps.sh --test installs them).
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
conf="$dir/slurm.conf"
marker="LIGHTWORK_TEST_CLUSTER=$dir"

log() { echo "slurm-test-cluster: $*" >&2; }

# The pid in a pid file, when that process still runs.
running_pid() {
  local f=$1 pid
  [ -s "$f" ] || return 1
  pid=$(tr -dc '0-9' <"$f")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# This cluster's other processes: those whose environment carries its marker (the jobs' processes: the
# tests submit with it) and its slurmstepd (which slurmd starts with SLURM_CONF set to this configuration).
marked_pids() {
  local p pid env
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] && continue
    env=$(tr '\0' '\n' 2>/dev/null <"$p/environ") || continue
    if grep -qxF "$marker" <<<"$env"; then
      echo "$pid"
    elif [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] && grep -qxF "SLURM_CONF=$conf" <<<"$env"; then
      echo "$pid"
    fi
  done
}

# Sends TERM, waits up to 10 s, then KILL.
stop_pids() {
  local pids=("$@") i
  [ ${#pids[@]} -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for i in $(seq 1 50); do
    local alive=()
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
    [ ${#alive[@]} -eq 0 ] && return 0
    sleep 0.2
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
}

stop_cluster() {
  if [ -f "$conf" ] && running_pid "$dir/slurmctld.pid" >/dev/null; then
    SLURM_CONF=$conf timeout 10 scancel --quiet --full --user="$(id -un)" 2>/dev/null || true
    # Let slurmd end the jobs' steps itself (a few seconds at most) before the daemons go.
    for _ in $(seq 1 25); do
      [ -z "$(SLURM_CONF=$conf timeout 5 squeue -h -t running,completing,suspended,configuring 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  local pids=()
  for f in slurmd slurmctld; do
    if pid=$(running_pid "$dir/$f.pid"); then pids+=("$pid"); fi
  done
  stop_pids "${pids[@]+"${pids[@]}"}"
  mapfile -t pids < <(marked_pids)
  stop_pids "${pids[@]+"${pids[@]}"}"
  if pid=$(running_pid "$dir/munge/munged.pid"); then stop_pids "$pid"; fi
  rm -f "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"
}

# Runs a daemon with no descriptor but stdin/stdout/stderr: a daemon that kept one its starter inherited (a
# pipe, or the socket Foundation's Process watches to see its child end) would keep that starter waiting.
daemon() {
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
    done
    exec "$@"
  )
}

# A TCP port nothing listens on, from a range unlikely to be in use.
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}

start_cluster() {
  for tool in munged mungekey slurmctld slurmd sinfo; do
    command -v "$tool" >/dev/null || { log "$tool not found: install slurm-wlm and munge (scripts/ensure-deps.sh --test)"; exit 1; }
  done
  [ "$(id -u)" = 0 ] || { log "needs root (slurmd starts jobs as their user)"; exit 1; }
  if running_pid "$dir/slurmctld.pid" >/dev/null; then log "a cluster already runs in $dir"; exit 1; fi
  trap 'status=$?; [ $status -eq 0 ] || { log "start failed; stopping what was started (logs in $dir/log)"; stop_cluster; }' EXIT
  export "$marker"
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
  chmod 755 "$dir" "$dir/munge"     # munged refuses a socket folder others can write to
  chmod 700 "$dir/state" "$dir/spool"

  [ -s "$dir/munge/munge.key" ] || mungekey --create --keyfile="$dir/munge/munge.key" --bits=1024
  chmod 400 "$dir/munge/munge.key"
  daemon munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
         --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" --force \
         </dev/null >"$dir/log/munged.stderr" 2>&1
  for _ in $(seq 1 50); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
  [ -S "$dir/munge/munge.socket" ] || { log "munged did not start (see $dir/log/munged.log)"; exit 1; }

  local node ctld_port slurmd_port user
  node=$(slurmd -C | head -1 | sed 's/ *$//')   # NodeName=... CPUs=... RealMemory=... as this machine has them
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  user=$(id -un)
  cat >"$conf" <<EOF
# Written by scripts/slurm-test-cluster.sh for a single-node test cluster in $dir.
ClusterName=lightworktest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
# A killed task gets SIGKILL one second after SIGTERM, as when a node dies under it.
KillWait=1
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$conf
  # The daemons' own output (before their log files open) goes to log/, not to whoever started this script.
  daemon slurmctld -c -i -f "$conf" </dev/null >"$dir/log/slurmctld.stderr" 2>&1
  daemon slurmd -f "$conf" </dev/null >"$dir/log/slurmd.stderr" 2>&1
  for _ in $(seq 1 100); do
    state=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
    [ "$state" = idle ] && break
    sleep 0.2
  done
  [ "$state" = idle ] || { log "the node did not become idle (state '$state'; see $dir/log)"; exit 1; }
  echo "$conf"
}

case $action in
  start) start_cluster ;;
  stop) stop_cluster ;;
  *) usage ;;
esac
