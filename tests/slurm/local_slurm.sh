# A throwaway single-node Slurm on this machine, for tests (sourced by slurm_test.sh).
#   local_slurm_start DIR   munged, slurmctld and slurmd, all state, spool, keys and logs in
#                           DIR, loopback only (127.0.0.1, two free ports); exports SLURM_CONF
#   local_slurm_stop        stops the daemons it started (by pid: TERM, then KILL after 10 s)
# Every wait is bounded. Needs root: slurmd starts jobs as their user, and SlurmUser is root.
# The plugins are the ones that work in a container: no cgroups, no accounting, no MPI.

LOCAL_SLURM_PIDS=()

local_slurm_log() { echo "[local-slurm] $*" >&2; }

# The daemons' own logs, for a failure message.
local_slurm_dump_logs() {
  local f
  for f in "$LOCAL_SLURM_DIR"/log/*; do
    [[ -f "$f" ]] || continue
    echo "---- $f (last 20 lines)" >&2
    tail -n 20 "$f" >&2
  done
}

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.2 s until it succeeds.
local_slurm_wait_for() {
  local secs="$1" what="$2"
  shift 2
  local deadline=$(($(date +%s) + secs))
  until "$@" >/dev/null 2>&1; do
    if [[ $(date +%s) -ge $deadline ]]; then
      local_slurm_log "gave up after ${secs}s waiting for $what"
      local_slurm_dump_logs
      return 1
    fi
    sleep 0.2
  done
}

local_slurm_free_ports() {  # two TCP ports free on 127.0.0.1 (bound then released)
  python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])'
}

local_slurm_start() {
  LOCAL_SLURM_DIR="$1"
  local d="$1" ctld_port slurmd_port
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log" || return 1
  chmod 700 "$d/munge"
  read -r ctld_port slurmd_port < <(local_slurm_free_ports) || return 1

  mungekey --create --keyfile="$d/munge/munge.key" || return 1
  munged --foreground --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.sock" \
    --pid-file="$d/munge/munged.pid" --seed-file="$d/munge/munged.seed" --origin=127.0.0.1 \
    >"$d/log/munged.log" 2>&1 &
  LOCAL_SLURM_PIDS+=($!)
  local_slurm_wait_for 15 "munged" bash -c "munge -S '$d/munge/munge.sock' -n | unmunge -S '$d/munge/munge.sock'" || return 1

  # SlurmctldHost must name this host (slurmctld checks), but its address is the loopback one.
  cat >"$d/slurm.conf" <<EOF
ClusterName=npuadvisortest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$d/slurm.conf"
  slurmctld -D -f "$SLURM_CONF" >>"$d/log/slurmctld.out" 2>&1 &
  LOCAL_SLURM_PIDS+=($!)
  slurmd -D -N localhost -f "$SLURM_CONF" >>"$d/log/slurmd.out" 2>&1 &
  LOCAL_SLURM_PIDS+=($!)
  local_slurm_wait_for 45 "the node to be idle (sinfo)" bash -c '[[ "$(sinfo -h -n localhost -o %T)" == idle ]]'
}

local_slurm_stop() {
  local pid i
  [[ ${#LOCAL_SLURM_PIDS[@]} -gt 0 ]] || return 0
  # Jobs still queued or running are cancelled first, so that no job step outlives slurmd.
  local jobs
  jobs=$(squeue -h -o %i 2>/dev/null | tr '\n' ' ')
  if [[ -n "${jobs// /}" ]]; then
    local_slurm_log "cancelling jobs left in the queue: $jobs"
    scancel $jobs 2>/dev/null
    local_slurm_wait_for 20 "the queue to empty" bash -c '[[ -z "$(squeue -h -o %i)" ]]'
  fi
  # slurmd and slurmctld first (they use munged), then munged.
  for ((i = ${#LOCAL_SLURM_PIDS[@]} - 1; i >= 0; i--)); do
    pid=${LOCAL_SLURM_PIDS[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null && local_slurm_log "pid $pid did not stop on TERM: killed"
    wait "$pid" 2>/dev/null
  done
  LOCAL_SLURM_PIDS=()
}
