#!/usr/bin/env bash
# S3 upload of a snapshot of a BENCH_DB_MB (default 66) MB etcd 3.6 db to the
# environment's versitygw:
#   1. lib/backup's stream_backup straight from etcd to S3 (what
#      `etcd-migrate adopt` does), and to a local directory for comparison,
#   2. lib/backup's S3Sink uploading the same snapshot file,
#   3. `curl --aws-sigv4 -T` uploading the same file in one PUT (its payload
#      sha256 timed too),
# each under /usr/bin/time -v: throughput and peak RSS. Targets (issue 14):
# stream_backup to S3 at >= 0.8x curl's throughput, peak RSS <= 64 MiB.
# BENCH_PART_MIB sets the S3 part size of the stream (default 8). Most of the
# stream's memory is gRPC's receive buffering, not the part buffer: compare
# the directory run with the S3Sink file run.
#
#   bench/s3_upload.sh          # TESTENV_ENV_FILE, or an environment of its own
. "$(dirname "$0")/lib.sh"
bench_env
here=$bench_here root=$bench_root build=$BENCH_BUILD mb=${BENCH_DB_MB:-66}
export TESTENV_DIR TESTENV_S3_ENDPOINT TESTENV_S3_ACCESS_KEY TESTENV_S3_SECRET_KEY
out=$bench_tmp
export BENCH_BUCKET="s3-bench-$$"
on_exit "rm -rf '${TESTENV_S3_DIR:?}/$BENCH_BUCKET'"
on_exit "'$TESTENV_TOOLS/etcd-cluster' down --dir '$out/etcd'"
mkdir "$TESTENV_S3_DIR/$BENCH_BUCKET"

# The bench links the library the build made; it is not part of the build
# (docs/rules.md#benchmarks-outside-ci: bench/ is not part of CI).
c++ -std=c++20 -O2 -I "$root/lib" -I "$build/lib" -isystem "$build/lib/etcd/proto" "$here/s3_upload.cc" \
    "$build/lib/libetcdopcli.a" "$build/lib/etcd/proto/libetcdproto.a" \
    $(pkg-config --libs grpc++ protobuf yaml-cpp openssl) -ldl -lpthread -o "$out/s3_upload"

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
mbs() { tail -1 "$out/out.$1" | sed -E 's/.*\(([0-9.]+) MB\/s\).*/\1/'; }
r=$(ratio "$(mbs "stream_backup etcd -> S3")" "$(mbs "sha256sum + curl --aws-sigv4 -T")")
check "throughput stream_backup to S3 / curl --aws-sigv4" "$r" ">=" 0.8
check "stream_backup to S3 peak RSS (MiB)" "$peak" "<=" 64
verdict s3_upload "throughput ratio $r (target >= 0.8), peak RSS $peak MiB (target <= 64) for a $((size / 1048576)) MiB snapshot"
