#!/usr/bin/env bash
# The installed flopspy, as a user gets it (docs/install.md):
#   1. the .deb from cpack: its Depends (no libfmt, no CUDA package), its files, and its launcher
#      run from the unpacked /usr/bin on a fake-driver program, then its report;
#   2. `cmake --install` into a prefix that is then moved: the launcher still finds its library,
#      the demo starts, the Python module imports, and a project using find_package(flopspy)
#      and flopspy::markers builds with the default generator and records its regions.
# Usage: package_test.sh BUILD_DIR SOURCE_DIR FAKE_APP FAKE_LIBRARY_PATH
set -euo pipefail
build=$1 source=$2 app=$3 fake_libs=$4
cmake=${CMAKE_COMMAND:-cmake}
cpack=${CPACK_COMMAND:-cpack}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/flopspy-package-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Nothing from the caller may point the launcher or CMake elsewhere.
unset FLOPSPY_LIBRARY LD_PRELOAD CMAKE_GENERATOR CMAKE_PREFIX_PATH CMAKE_BUILD_PARALLEL_LEVEL

fail() {
  echo "package_test: FAIL: $*" >&2
  exit 1
}
step() { echo "package_test: $*"; }

# Runs the program under LAUNCHER with the fake driver, then REPORT into OUT.txt.
traced_report() {
  local launcher=$1 report=$2 out=$3 rc=0
  shift 3
  LD_LIBRARY_PATH=$fake_libs "$launcher" run -o "$out" -- "$@" >"$out.log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || { cat "$out.log" >&2; fail "$launcher run -- $* exited $rc"; }
  compgen -G "$out/*.fspy" >/dev/null || { cat "$out.log" >&2; fail "no trace in $out"; }
  "$report" "$out" >"$out.txt" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || { cat "$out.txt" >&2; fail "$report $out exited $rc"; }
}

# Fails unless the report OUT.txt holds each of the words.
report_names() {
  local out=$1
  shift
  for word in "$@"; do
    grep -q -- "$word" "$out.txt" || { cat "$out.txt" >&2; fail "the report lacks $word"; }
  done
}

# --- 1. The .deb -------------------------------------------------------------------------------
step "cpack -G DEB"
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/deb" >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack failed"; }
debs=("$tmp"/deb/flopspy_*.deb)
[ -f "${debs[0]}" ] || { ls -R "$tmp/deb"; fail "no flopspy_*.deb"; }
deb=${debs[0]}
info=$(dpkg-deb -I "$deb")
echo "$info"
echo "$info" | grep -q '^ Section: devel$' || fail "Section is not devel"
depends=$(echo "$info" | sed -n 's/^ Depends: //p')
[ -n "$depends" ] || fail "no Depends (dpkg-shlibdeps did not run?)"
echo "$depends" | grep -q 'libc6' || fail "Depends lacks libc6: $depends"
! echo "$depends" | grep -qi 'fmt' || fail "Depends names libfmt: $depends"
! echo "$depends" | grep -Eqi 'cuda|cublas|cupti|nvidia' || fail "Depends names CUDA: $depends"

contents=$(dpkg-deb -c "$deb")
for f in usr/bin/flopspy usr/bin/flopspy-report usr/lib/libflopspy.so \
  usr/include/flopspy/flopspy.h usr/lib/cmake/flopspy/flopspyConfig.cmake \
  usr/lib/cmake/flopspy/flopspyConfigVersion.cmake usr/share/doc/flopspy/README.md; do
  echo "$contents" | grep -q " \./$f\$" || fail "the .deb lacks /$f"
done
! echo "$contents" | grep -q 'flopspy-demo' || fail "the .deb holds the build-tree demo"
! echo "$contents" | grep -q '__pycache__' || fail "the .deb holds __pycache__"
if [ -f "$source/python/flopspy/__init__.py" ]; then
  echo "$contents" | grep -q ' \./usr/lib/python3/dist-packages/flopspy/__init__\.py$' ||
    fail "the .deb lacks the Python module"
fi

root=$tmp/root
dpkg-deb -x "$deb" "$root"
for elf in "$root"/usr/bin/* "$root"/usr/lib/libflopspy.so; do
  needed=$(readelf -d "$elf" | grep NEEDED || true)
  ! echo "$needed" | grep -Eq 'libfmt|libcuda|libcublas|libcupti' || fail "$elf needs: $needed"
done
step "the installed launcher on a fake-driver program"
traced_report "$root/usr/bin/flopspy" "$root/usr/bin/flopspy-report" "$tmp/deb-out" \
  "$app" launch-once
report_names "$tmp/deb-out" add_kernel

# --- 2. cmake --install into a prefix, then moved ----------------------------------------------
step "cmake --install, then the prefix moved"
"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "cmake --install failed"; }
mv "$tmp/prefix" "$tmp/moved"
p=$tmp/moved
for f in bin/flopspy bin/flopspy-report lib/libflopspy.so include/flopspy/flopspy.h \
  lib/cmake/flopspy/flopspyConfig.cmake share/doc/flopspy/README.md; do
  [ -e "$p/$f" ] || fail "the prefix lacks $f"
done
[ ! -e "$p/share/doc/flopspy/__pycache__" ] || fail "__pycache__ installed"
if [ -x "$p/bin/flopspy-demo" ]; then
  "$p/bin/flopspy-demo" --quick --cpu-only >"$tmp/demo.log" 2>&1 ||
    { cat "$tmp/demo.log"; fail "the installed demo failed"; }
fi
if [ -f "$source/python/flopspy/__init__.py" ] && command -v python3 >/dev/null; then
  where=$(cd "$tmp" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$p/lib/python3/dist-packages \
    python3 -c 'import flopspy; print(flopspy.__file__)') || fail "import flopspy failed"
  [ "$where" = "$p/lib/python3/dist-packages/flopspy/__init__.py" ] ||
    fail "python3 imported flopspy from $where"
fi

step "find_package(flopspy) from the moved prefix, default generator"
"$cmake" -S "$source/tests/package/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$p" \
  >"$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; fail "the consumer's configure failed"; }
grep -q "^flopspy_DIR:PATH=$p/lib/cmake/flopspy\$" "$tmp/consumer/CMakeCache.txt" ||
  fail "find_package(flopspy) did not use $p: $(grep flopspy_DIR "$tmp/consumer/CMakeCache.txt")"
grep -q '^CMAKE_GENERATOR:INTERNAL=Unix Makefiles$' "$tmp/consumer/CMakeCache.txt" ||
  fail "the consumer was not configured with the default generator"
"$cmake" --build "$tmp/consumer" >>"$tmp/consumer.log" 2>&1 ||
  { cat "$tmp/consumer.log"; fail "the consumer's build failed"; }
"$tmp/consumer/consumer" | grep -q '^consumer ok' || fail "the consumer alone did not run"
traced_report "$p/bin/flopspy" "$p/bin/flopspy-report" "$tmp/prefix-out" "$tmp/consumer/consumer"
report_names "$tmp/prefix-out" consumer-step consumer-c-api
step "ok"
