#!/usr/bin/env bash
# A snapshot of a BENCH_DB_MB (default 66) MB etcd 3.6 db into the
# environment's S3 server (versitygw, over https: TESTENV_S3_HTTPS_ENDPOINT,
# verified with TESTENV_S3_CA), the way a user would get it there:
#   - this suite: one command streams it from etcd straight to S3
#     (lib/backup's stream_backup, what `etcd-migrate adopt` runs; the db's
#     sha256 checked against etcd's trailer, each part's CRC32C checked by
#     the server, the stored checksum and metadata read back:
#     docs/rules.md#s3-part-checksums);
#   - the same before the CRC32C checksums, in the same run: the same program
#     with them off (Content-MD5 per part, the ETags read back), over https
#     and over plain http (there the signed payload SHA-256 per part too);
#   - without it: `etcdctl snapshot save` to a file, `sha256sum` of the file
#     (SigV4 needs the payload hash: libcurl 7.88 does not compute it), then
#     `curl --aws-sigv4 --cacert -T` of the file in one PUT over https, all
#     three timed together;
# each side ROUNDS (default 5) times, interleaved (the order rotated every
# round), each run under /usr/bin/time -v for its peak RSS. Targets (issue
# 27): this suite's median at least 1.5x faster than the user's, its peak RSS
# <= 64 MiB. For information: the curl upload of the existing file alone
# (with its sha256sum), lib/backup's S3Sink uploading that file, and the
# stream to a local directory. BENCH_PART_MIB sets the S3 part size (default
# 8), BENCH_PARTS_IN_FLIGHT how many parts upload at once (default 2).
#
#   bench/s3_upload.sh          # TESTENV_ENV_FILE, or an environment of its own
. "$(dirname "$0")/lib.sh"
bench_env
here=$bench_here root=$bench_root build=$BENCH_BUILD mb=${BENCH_DB_MB:-66}
export TESTENV_DIR TESTENV_S3_ENDPOINT TESTENV_S3_ACCESS_KEY TESTENV_S3_SECRET_KEY TESTENV_S3_HTTPS_ENDPOINT TESTENV_S3_CA
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
echo "etcd 3.6 db: $((size / 1048576)) MiB snapshot ($size bytes); S3 server $TESTENV_S3_HTTPS_ENDPOINT (and $TESTENV_S3_ENDPOINT)"

rss() { awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$1"; }
# CPU seconds (user + system) of a side's own processes, children included:
# the servers' share (etcd, versitygw) is not in it.
cpu() { awk -F': ' '/User time|System time/ {t += $2} END {printf "%.2f\n", t}' "$1"; }
measure() { # NAME CMD...
    local name=$1; shift
    /usr/bin/time -v -o "$out/time.$name" "$@" >"$out/out.$name" 2>&1 || { cat "$out/out.$name"; exit 1; }
    printf '%-34s %-48s peak RSS %6s MiB\n' "$name" "$(tail -1 "$out/out.$name")" "$(rss "$out/time.$name")"
}

mkdir "$out/dir"
measure "stream_backup etcd -> directory" "$out/s3_upload" etcd-dir "$ep" "$out/dir"
measure "S3Sink file -> S3 https" env BENCH_S3_ENDPOINT="$TESTENV_S3_HTTPS_ENDPOINT" BENCH_S3_CA="$TESTENV_S3_CA" "$out/s3_upload" file "$out/snap.db" "sink/snap.db"
curl_put() { # FILE KEY: sha256sum, then one signed PUT
    local sum
    sum=$(sha256sum "$1" | cut -d' ' -f1)
    curl -sS -f --cacert "$TESTENV_S3_CA" --aws-sigv4 "aws:amz:us-east-1:s3" \
        -u "$TESTENV_S3_ACCESS_KEY:$TESTENV_S3_SECRET_KEY" \
        -H "x-amz-content-sha256: $sum" -T "$1" "$TESTENV_S3_HTTPS_ENDPOINT/$BENCH_BUCKET/$2"
}
timed() { # CMD...: runs it, prints "N bytes in S s (M MB/s)" as s3_upload does
    local t0 t1
    t0=$(date +%s.%N); "$@" || return; t1=$(date +%s.%N)
    awk -v b="$size" -v s="$(echo "$t1 - $t0" | bc)" 'BEGIN {printf "%d bytes in %.2f s (%.1f MB/s)\n", b, s, b / 1e6 / s}'
}
user_pipeline() { # what a user runs without this suite
    rm -f "$out/user.db"
    # A failed step must fail the run (measure stops), never count as fast.
    "$ETCD_BIN/etcdctl" --endpoints "$ep" snapshot save "$out/user.db" >"$out/user.log" 2>&1 ||
        { cat "$out/user.log"; return 1; }
    curl_put "$out/user.db" user/snap.db
}
export -f curl_put timed user_pipeline
export out size ep ETCD_BIN
measure "sha256sum + curl --aws-sigv4 https" bash -c 'timed curl_put "$out/snap.db" curl/snap.db'

secs() { tail -1 "$out/out.$1" | sed -E 's/.* in ([0-9.]+) s .*/\1/'; }
rounds=${ROUNDS:-5}
sides=(crc md5 http user)
declare -A label=(
    [crc]="stream -> S3 https, CRC32C"
    [md5]="stream -> S3 https, Content-MD5"
    [http]="stream -> S3 http, MD5 + SHA-256"
    [user]="etcdctl save + sha256sum + curl")
for side in "${sides[@]}"; do : >"$out/$side.t"; : >"$out/$side.busy"; : >"$out/$side.cpu"; done
peak=0
ours() { # ENDPOINT CA CRC32C: the command of the suite's stream, as `etcd-migrate adopt` runs it
    cmd=(env BENCH_S3_ENDPOINT="$1" BENCH_S3_CA="$2" BENCH_CRC32C="$3"
        "$out/s3_upload" etcd "$ep" "stream/bench-etcd-migration.db")
}
# Every side timed the same way: whole processes, from outside; the order
# rotated every round, so no side always follows another.
for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < ${#sides[@]}; i++)); do
        side=${sides[$(((i + r) % ${#sides[@]}))]}
        cpu_mark; t0=$(date +%s.%N)
        case $side in
        crc) ours "$TESTENV_S3_HTTPS_ENDPOINT" "$TESTENV_S3_CA" 1 ;;
        md5) ours "$TESTENV_S3_HTTPS_ENDPOINT" "$TESTENV_S3_CA" 0 ;;
        http) ours "$TESTENV_S3_ENDPOINT" "" 0 ;;
        user) cmd=(bash -c 'timed user_pipeline') ;;
        esac
        measure "${label[$side]}" "${cmd[@]}"
        echo "$(date +%s.%N) - $t0" | bc -l >>"$out/$side.t"
        cpu_busy | cut -d' ' -f1 >>"$out/$side.busy"
        cpu "$out/time.${label[$side]}" >>"$out/$side.cpu"
        if [ "$side" = crc ]; then
            peak=$(awk -v a="$peak" -v b="$(rss "$out/time.${label[crc]}")" 'BEGIN {print (b > a ? b : a)}')
        fi
    done
done
declare -A med
for side in "${sides[@]}"; do
    med[$side]=$(median "$out/$side.t")
    printf '  median of %d rounds: %-34s %.2f s, its CPU %.2f s, cores busy %s of %d\n' "$rounds" "${label[$side]}" \
        "${med[$side]}" "$(median "$out/$side.cpu")" "$(median "$out/$side.busy")" "$(nproc)"
done
r=$(ratio "${med[user]}" "${med[crc]}")
printf '  ratios to the CRC32C stream: Content-MD5 over https %s, MD5 + SHA-256 over http %s, user pipeline %s\n' \
    "$(ratio "${med[md5]}" "${med[crc]}")" "$(ratio "${med[http]}" "${med[crc]}")" "$r"
check "etcdctl save + sha256sum + curl / this suite's stream (time)" "$r" ">=" 1.5
check "stream_backup to S3 peak RSS (MiB)" "$peak" "<=" 64
verdict s3_upload "$r x faster than etcdctl save + sha256sum + curl over https (target >= 1.5; $(printf %.2f "${med[crc]}") against $(printf %.2f "${med[user]}") s; Content-MD5 $(printf %.2f "${med[md5]}") s, http MD5 + SHA-256 $(printf %.2f "${med[http]}") s), peak RSS $peak MiB (target <= 64) for a $((size / 1048576)) MiB snapshot; curl alone $(secs "sha256sum + curl --aws-sigv4 https") s"
