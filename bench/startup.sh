#!/usr/bin/env bash
# Start-up of what users install: `kubectl-etcd version` against etcdctl
# 3.6's `etcdctl version`, whole process, interleaved. No servers. Each
# packaging route's build is measured (built, or brought up to date, under
# BENCH_ROUTES_DIR, default build-routes/; BENCH_BUILD serves as the release
# route's build when packaging/release-build.sh made it):
#   - release: packaging/release-build.sh (release, -Dstatic_grpc=true), what
#     the krew archive (packaging/krew/archive.sh), the container image
#     (packaging/container/Containerfile) and with it the in-cluster Job
#     (packaging/container/adopt-job.yaml) ship. Target (issue 14): ratio <= 1.0.
#   - debian: configured as `dh --buildsystem=meson` configures it with
#     packaging/debian/rules (its DEB_BUILD_MAINT_OPTIONS for dpkg-buildflags,
#     --buildtype=plain, its -D options): Debian's shared gRPC by policy.
#     Shown beside, no target. BENCH_DEB=FILE.deb measures a built package's
#     kubectl-etcd instead.
# BENCH_COMPARE_BUILDS="DIR..." shows more builds beside (e.g. build/).
#
#   bench/startup.sh
. "$(dirname "$0")/lib.sh"
etcdctl="$(etcd36_bin)/etcdctl"
routes=${BENCH_ROUTES_DIR:-$bench_root/build-routes}
mkdir -p "$routes"

# The release route: the script the packaging runs, on BENCH_BUILD when that
# is already such a build (packaging/release-build.sh build-release), so that
# it is not compiled twice.
release_dir="$routes/release"
if meson introspect --buildoptions "$BENCH_BUILD" 2>/dev/null |
    jq -e 'map({(.name): .value}) | add | .static_grpc == true and .buildtype == "release"' >/dev/null; then
    release_dir=$BENCH_BUILD
fi
"$bench_root/packaging/release-build.sh" "$release_dir" >"$routes/release.log" 2>&1 ||
    { tail -20 "$routes/release.log"; exit 1; }
release="$release_dir/tools/kubectl-etcd/kubectl-etcd"

# The Debian route: dh's meson configuration with the rules' options.
if [ -n "${BENCH_DEB:-}" ]; then
    dpkg -x "$BENCH_DEB" "$bench_tmp/deb"
    debian="$bench_tmp/deb/usr/bin/kubectl-etcd"
else
    rules="$bench_root/packaging/debian/rules"
    maint=$(sed -n 's/^export DEB_BUILD_MAINT_OPTIONS *= *//p' "$rules")
    read -r -a dh_args <<<"$(sed -n 's/.*dh_auto_configure -- *//p' "$rules")"
    (
        eval "$(DEB_BUILD_MAINT_OPTIONS="$maint" dpkg-buildflags --export=sh)"
        if [ ! -f "$routes/debian/build.ninja" ]; then
            meson setup "$routes/debian" "$bench_root" --wrap-mode=nodownload --buildtype=plain --prefix=/usr "${dh_args[@]}"
        fi
        ninja -C "$routes/debian" tools/kubectl-etcd/kubectl-etcd
    ) >"$routes/debian.log" 2>&1 || { tail -20 "$routes/debian.log"; exit 1; }
    debian="$routes/debian/tools/kubectl-etcd/kubectl-etcd"
fi

echo "start-up, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
side() { # NAME BINARY: one interleaved comparison, its ratio in R
    echo "  $1: $2 ($(ldd "$2" | wc -l) shared objects)"
    ROUNDS=${ROUNDS:-6} RUNS=${RUNS:-20} ab "kubectl-etcd version ($1)" "$2 version" "etcdctl version (3.6)" "$etcdctl version"
    R=$(ratio "$A_MED" "$B_MED")
    echo "  ratio ($1): $R"
}
side "krew, container image, in-cluster Job: packaging/release-build.sh" "$release"
r=$R
side "Debian package (shared libraries by policy; no target)" "$debian"
deb_r=$R
for b in ${BENCH_COMPARE_BUILDS:-}; do
    side "$b" "$(cd "$b" && pwd)/tools/kubectl-etcd/kubectl-etcd"
done
check "kubectl-etcd/etcdctl start-up, release build (krew, image, Job)" "$r" "<=" 1.0
verdict startup "ratio $r for the krew archive, image and Job build (target <= 1.0); Debian package $deb_r (no target)"
