#!/usr/bin/env bash
# lib/kube connection reuse: BENCH_N (default 100) GETs of one ConfigMap,
# sequentially and over BENCH_THREADS (default 4) threads; prints requests,
# new connections (each one TLS handshake) and HTTP/2 use, and fails when
# there is more than one connection per thread.
#
#   bench/kube_connections.sh   # TESTENV_ENV_FILE, or an environment of its own
. "$(dirname "$0")/lib.sh"
bench_env
here=$bench_here root=$bench_root build=$BENCH_BUILD n=${BENCH_N:-100} threads=${BENCH_THREADS:-4}
out=$bench_tmp
ns=kube-bench-$$
on_exit "'$TESTENV_KUBECTL' delete namespace '$ns' --wait=false"
"$TESTENV_KUBECTL" create namespace "$ns" >/dev/null
"$TESTENV_KUBECTL" -n "$ns" create configmap bench --from-literal=k=v >/dev/null

# The bench links the library the build made; it is not part of the build
# (docs/rules.md#benchmarks-outside-ci: bench/ is not part of CI).
c++ -std=c++20 -O2 -I "$root/lib" -I "$build/lib" "$here/kube_connections.cc" "$build/lib/libetcdopcli.a" \
    $(pkg-config --libs yaml-cpp) -ldl -lpthread -o "$out/kube_connections"
rc=0
"$out/kube_connections" "$KUBECONFIG" "$ns" bench "$n" "$threads" | tee "$out/result" || rc=$?
conns=$(sed -n 's/.*connections(tls handshakes)=\([0-9]*\).*/\1/p' "$out/result" | tail -1)
[ "$rc" = 0 ] || bench_missed=1
verdict kube_connections "$conns connections for $n GETs over $threads threads (target <= $threads)"
