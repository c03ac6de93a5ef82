#!/usr/bin/env bash
# Runs every fuzz target of a -Dfuzz=true build dir for SECONDS each over a
# copy of its seed corpus (the repository is never written), one after the
# other. A crash, a sanitizer report, a timeout or a leak fails the target;
# its input is kept in <builddir>/fuzz-crashes/<target>/ and named in the
# output (docs/fuzzing.md: how it becomes a unit test). Prints one line per
# target and ends with "fuzz: N passed, N failed"; exits 1 when any failed.
#
#   fuzz/run.sh BUILDDIR SECONDS [TARGET ...]    # TARGET as in fuzz/meson.build
set -uo pipefail
cd "$(dirname "$0")/.."
builddir=${1:?usage: fuzz/run.sh BUILDDIR SECONDS [TARGET ...]}
seconds=${2:?usage: fuzz/run.sh BUILDDIR SECONDS [TARGET ...]}
shift 2
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  targets=($(ls fuzz/corpus))
fi

work=$(mktemp -d /tmp/etcd-operator-cli-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
# UBSan reports are failures here, as they are in meson test; LSan stays on.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}

passed=0
failed=0
for t in "${targets[@]}"; do
  exe="$builddir/fuzz/fuzz-${t//_/-}"
  if [ ! -x "$exe" ]; then
    echo "fuzz-$t: FAILED (no $exe: build it with ninja -C $builddir fuzz)"
    failed=$((failed + 1))
    continue
  fi
  mkdir -p "$work/$t/corpus" "$work/$t/crash"
  cp fuzz/corpus/"$t"/* "$work/$t/corpus/"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GiB, well
  # under the machine's memory, far over any parser's need.
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/$t/crash/" "$work/$t/corpus" >"$work/$t/log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$work/$t/log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz-$t: ok (${runs:-?} runs in ${seconds}s, ${cov:-cov: ?})"
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    keep="$builddir/fuzz-crashes/$t"
    mkdir -p "$keep"
    cp "$work/$t/crash/"* "$keep/" 2>/dev/null || true
    echo "fuzz-$t: FAILED (exit $rc); inputs kept in $keep:"
    ls "$keep" | sed 's/^/  /'
    # The report's first lines and its frames in our code.
    grep -E 'ERROR: |runtime error|SUMMARY|terminate|what\(\)| in .*\.\./(lib|fuzz)/' "$work/$t/log" | grep -v NEW_FUNC | head -15 | sed 's/^/  /'
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
