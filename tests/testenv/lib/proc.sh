# Starting and stopping the environment's processes by recorded pid (sourced).
# shellcheck shell=bash

# proc_start PIDFILE LOGFILE CMD...: start CMD in its own session, detached,
# output appended to LOGFILE (a restarted process keeps its earlier log),
# pid to PIDFILE.
proc_start() {
    local pidfile=$1 logfile=$2; shift 2
    setsid "$@" >>"$logfile" 2>&1 </dev/null &
    echo $! >"$pidfile"
}

# proc_alive PIDFILE: the recorded process still runs and is still ours (its
# command line mentions the directory the pid file is in, so a reused pid
# is never taken for ours).
proc_alive() {
    local pidfile=$1 pid owner
    [[ -f "$pidfile" ]] || return 1
    pid=$(<"$pidfile")
    [[ -n "$pid" && -r /proc/$pid/cmdline ]] || return 1
    owner=$(proc_owner_dir "$pidfile")
    { tr '\0' ' ' </proc/"$pid"/cmdline; } 2>/dev/null | grep -qF -- "$owner" || return 1
    # A zombie is not alive.
    [[ $(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null) != Z ]]
}

# The directory every process's command line refers to: the pid file's
# environment or cluster directory (pid files live in <dir>/pids/).
proc_owner_dir() { dirname "$(dirname "$1")"; }

# proc_signal PIDFILE SIG
proc_signal() {
    proc_alive "$1" || return 1
    kill -s "$2" "$(<"$1")"
}

# proc_wait_stopped PIDFILE: returns once every thread of the process is
# stopped. kill(2) returns when SIGSTOP is queued, and a thread of the member
# may still answer a request before it stops: e2e-etcd-status saw a "paused"
# member answer in 10-18 ms twice. 5 s at most.
proc_wait_stopped() {
    local pid t state running end=$((SECONDS + 5))
    pid=$(<"$1")
    while ((SECONDS < end)); do
        running=0
        for t in /proc/"$pid"/task/*/stat; do
            state=$(sed 's/.*) //' "$t" 2>/dev/null) || continue
            [[ ${state:0:1} == [Tt] ]] || running=1
        done
        ((running)) || return 0
        sleep 0.01
    done
    return 1
}

# proc_stop PIDFILE [TIMEOUT]: SIGTERM, then SIGKILL after TIMEOUT (10 s).
# A stopped (SIGSTOPped) process is continued so it can handle SIGTERM.
proc_stop() {
    local pidfile=$1 t=${2:-10} pid end
    if ! proc_alive "$pidfile"; then rm -f "$pidfile"; return 0; fi
    pid=$(<"$pidfile")
    kill -TERM "$pid" 2>/dev/null || true
    kill -CONT "$pid" 2>/dev/null || true
    end=$((SECONDS + t))
    while proc_alive "$pidfile" && (( SECONDS < end )); do sleep 0.1; done
    if proc_alive "$pidfile"; then
        kill -KILL "$pid" 2>/dev/null || true
        while proc_alive "$pidfile"; do sleep 0.1; done
    fi
    rm -f "$pidfile"
}
