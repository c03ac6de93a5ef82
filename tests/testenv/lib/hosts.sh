# Loopback IP allocation and /etc/hosts entries, shared by environments
# running side by side, each change made under a lock (sourced).
# shellcheck shell=bash

HOSTS_FILE=${TESTENV_HOSTS_FILE:-/etc/hosts}
HOSTS_MARK="# etcd-operator-cli-testenv owner="

_state_dir() { mkdir -p "$TESTENV_STATE/ips"; chmod 1777 "$TESTENV_STATE" 2>/dev/null || true; }

# ip_alloc OWNER COUNT [AVOID...]: print COUNT free loopback IPs (127.1.x.y),
# none of AVOID, recorded as OWNER's (a directory; when it no longer exists
# the IP is free again). An IP is free when unrecorded and nothing listens on
# its 2379/2380.
ip_alloc() {
    local owner=$1 count=$2
    shift 2
    _state_dir
    (
        flock 9
        python3 - "$TESTENV_STATE/ips" "$owner" "$count" "$@" <<'PY'
import os, socket, sys
reg, owner, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
avoid = set(sys.argv[4:])
def taken(ip):
    f = os.path.join(reg, ip)
    try:
        o = open(f).read().strip()
    except FileNotFoundError:
        return False
    if os.path.isdir(o):
        return True
    os.unlink(f)  # stale: its owner is gone
    return False
def bindable(ip):
    for port in (2379, 2380, 2381):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((ip, port))
        except OSError:
            return False
        finally:
            s.close()
    return True
got = []
for x in range(0, 256):
    for y in range(1, 255):
        ip = f"127.1.{x}.{y}"
        if ip in avoid or taken(ip) or not bindable(ip):
            continue
        with open(os.path.join(reg, ip), "w") as f:
            f.write(owner + "\n")
        got.append(ip)
        if len(got) == count:
            print("\n".join(got))
            sys.exit(0)
sys.exit("no free loopback IPs")
PY
    ) 9>"$TESTENV_STATE/ips.lock"
}

# ip_release_owner OWNER: free every IP recorded for OWNER.
ip_release_owner() {
    local owner=$1 f
    _state_dir
    (
        flock 9
        for f in "$TESTENV_STATE"/ips/*; do
            [[ -f "$f" && $(<"$f") == "$owner" ]] && rm -f "$f"
        done
        true
    ) 9>"$TESTENV_STATE/ips.lock"
}

# hosts_add OWNER "IP NAME" ...: append entries marked with OWNER. Entries of
# owners that no longer exist are swept at the same time.
hosts_add() {
    local owner=$1; shift
    _state_dir
    (
        flock 9
        _hosts_rewrite "" "$owner" "$@"
    ) 9>"$TESTENV_STATE/hosts.lock"
}

# hosts_remove OWNER: remove OWNER's entries.
hosts_remove() {
    _state_dir
    (
        flock 9
        _hosts_rewrite "$1" ""
    ) 9>"$TESTENV_STATE/hosts.lock"
}

# _hosts_rewrite REMOVE_OWNER ADD_OWNER [ENTRY...]. The file is rewritten in
# place (it may be a bind mount, so no rename).
_hosts_rewrite() {
    python3 - "$HOSTS_FILE" "$HOSTS_MARK" "$@" <<'PY'
import os, sys
path, mark, remove, add, entries = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
lines = open(path).read().splitlines()
out = []
for l in lines:
    i = l.find(mark)
    if i >= 0:
        o = l[i + len(mark):].strip()
        if o == remove or not os.path.exists(o):
            continue
    out.append(l)
for e in entries:
    out.append(f"{e} {mark}{add}")
data = "\n".join(out) + "\n"
with open(path, "r+") as f:
    f.write(data)
    f.truncate()
PY
}
