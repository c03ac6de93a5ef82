#!/usr/bin/env bash
# The crash tests' seams are environment variables that make a program kill
# itself after a step; they belong in test builds only (meson_options.txt,
# -Dtest_seams). Fails when a binary built without the option holds one of
# their names (what `strings` would find in a release), and when a binary
# built with it lacks them (the crash tests would then test nothing).
# With BINARIES="a b" it checks those files as a release (deb_test.sh).
set -euo pipefail
seams=(ETCD_MIGRATE_TEST_KILL_AFTER ETCD_MIGRATE_TEST_SIGNAL KUBECTL_ETCD_TEST_KILL_AFTER)
if [ -n "${BINARIES:-}" ]; then
  read -r -a bins <<<"$BINARIES"
  want=0
else
  bins=("$ETCD_MIGRATE" "$KUBECTL_ETCD")
  want=${TEST_SEAMS:?TEST_SEAMS is set by meson: 1 in a -Dtest_seams=true build}
fi
bad=0
found=0
for b in "${bins[@]}"; do
  for s in "${seams[@]}"; do
    if grep -aqF "$s" "$b"; then
      found=$((found + 1))
      if [ "$want" = 0 ]; then
        echo "test-seams: $b holds $s: a release build must not (configure it with -Dtest_seams=false)" >&2
        bad=1
      fi
    fi
  done
done
if [ "$want" = 1 ] && [ "$found" -eq 0 ]; then
  echo "test-seams: built with -Dtest_seams=true, yet no binary holds a seam: the crash tests would kill nothing" >&2
  bad=1
fi
[ "$bad" -eq 0 ] || exit 1
echo "test-seams: ok (${#bins[@]} binaries; seams $([ "$want" = 1 ] && echo "present, a test build" || echo "absent, as in a release"))"
