#!/usr/bin/env bash
# S3 upload of a snapshot of a 64+ MB etcd db to the environment's versitygw:
#   1. lib/backup's stream_backup straight from etcd 3.6 to S3 (what
#      `etcd-migrate adopt` does), and to a local directory for comparison,
#   2. lib/backup's S3Sink uploading the same snapshot file,
#   3. `curl --aws-sigv4 -T` uploading the same file in one PUT,
# each under /usr/bin/time -v: throughput and peak RSS. Fails when
# stream_backup to S3 needs 64 MiB or more (issue 9: memory stays bounded).
# Not run by CI. BENCH_PART_MIB sets the S3 part size of the stream (default
# 8). Most of the stream's memory is gRPC's receive buffering, not the part
# buffer: compare the directory run with the S3Sink file run.
#
# usage: bench/s3_upload.sh ENV_FILE [BUILD_DIR] [MB]
#   ENV_FILE: written by tests/testenv/up; BUILD_DIR (default build) holds lib/libetcdopcli.a
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
env_file=${1:?usage: $0 ENV_FILE [BUILD_DIR] [MB]}
build=${2:-$root/build}
mb=${3:-66}
. "$env_file"
export TESTENV_DIR TESTENV_S3_ENDPOINT TESTENV_S3_ACCESS_KEY TESTENV_S3_SECRET_KEY

out=$(mktemp -d /tmp/s3-bench.XXXXXX)
export BENCH_BUCKET="s3-bench-$$"
cleanup() {
    "$TESTENV_TOOLS/etcd-cluster" down --dir "$out/etcd" >/dev/null 2>&1 || true
    rm -rf "$out" "${TESTENV_S3_DIR:?}/$BENCH_BUCKET"
}
trap cleanup EXIT
mkdir "$TESTENV_S3_DIR/$BENCH_BUCKET"

# The bench links the library the build made; it is not part of the build
# (decisions.md E26: bench/ is not part of CI).
c++ -std=c++20 -O2 -I "$root/lib" -I "$build/lib" -isystem "$build/lib/etcd/proto" "$here/s3_upload.cc" \
    "$build/lib/libetcdopcli.a" "$build/lib/etcd/proto/libetcdproto.a" \
    $(pkg-config --libs grpc++ protobuf libcurl yaml-cpp openssl) -lpthread -o "$out/s3_upload"

"$TESTENV_TOOLS/etcd-cluster" up --dir "$out/etcd" --version 3.6 --members 1 \
    --quota-backend-bytes 1073741824 >/dev/null 2>&1
. "$out/etcd/cluster.env"
ep=${ETCD_ENDPOINTS%%,*}
head -c $((256 * 1024)) /dev/urandom >"$out/value"
for i in $(seq 1 $((mb * 4))); do
    "$ETCD_BIN/etcdctl" --endpoints "$ep" put "/bench/$i" <"$out/value" >/dev/null
done
"$ETCD_BIN/etcdctl" --endpoints "$ep" snapshot save "$out/snap.db" >/dev/null 2>&1
size=$(stat -c %s "$out/snap.db")
echo "etcd 3.6 db: $((size / 1048576)) MiB snapshot ($size bytes); S3 server $TESTENV_S3_ENDPOINT"

rss() { awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$1"; }
measure() { # NAME CMD...
    local name=$1; shift
    /usr/bin/time -v -o "$out/time.$name" "$@" >"$out/out.$name" 2>&1 || { cat "$out/out.$name"; exit 1; }
    printf '%-34s %-48s peak RSS %6s MiB\n' "$name" "$(tail -1 "$out/out.$name")" "$(rss "$out/time.$name")"
}

mkdir "$out/dir"
measure "stream_backup etcd -> directory" "$out/s3_upload" etcd-dir "$ep" "$out/dir"
measure "stream_backup etcd -> S3" "$out/s3_upload" etcd "$ep" "stream/bench-etcd-migration.db"
measure "S3Sink file -> S3" "$out/s3_upload" file "$out/snap.db" "sink/snap.db"
curl_put() {
    # The signed payload hash is part of curl's work (libcurl 7.88 needs it
    # given as x-amz-content-sha256), so it is timed too.
    local t0 t1 sum
    t0=$(date +%s.%N)
    sum=$(sha256sum "$out/snap.db" | cut -d' ' -f1)
    curl -sS -f --aws-sigv4 "aws:amz:us-east-1:s3" -u "$TESTENV_S3_ACCESS_KEY:$TESTENV_S3_SECRET_KEY" \
        -H "x-amz-content-sha256: $sum" -T "$out/snap.db" \
        "$TESTENV_S3_ENDPOINT/$BENCH_BUCKET/curl/snap.db"
    t1=$(date +%s.%N)
    awk -v b="$size" -v s="$(echo "$t1 - $t0" | bc)" \
        'BEGIN {printf "%d bytes in %.2f s (%.1f MB/s), single PUT\n", b, s, b / 1e6 / s}'
}
export -f curl_put
export out size
measure "sha256sum + curl --aws-sigv4 -T" bash -c curl_put

peak=$(rss "$out/time.stream_backup etcd -> S3")
if awk -v p="$peak" 'BEGIN {exit !(p < 64)}'; then
    echo "ok: stream_backup peak RSS $peak MiB < 64 MiB for a $((size / 1048576)) MiB snapshot"
else
    echo "FAIL: stream_backup peak RSS $peak MiB >= 64 MiB"
    exit 1
fi
