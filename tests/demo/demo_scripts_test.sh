#!/usr/bin/env bash
# The steps of scripts/demo after the build, each on its own (the whole script builds, too slow
# for a test):
#
#   demo_scripts_test.sh bundled-none     SOURCE_DIR REPORT
#   demo_scripts_test.sh bundled-labelled SOURCE_DIR REPORT TRACE_WRITER
#   demo_scripts_test.sh no-cpu-counters  SOURCE_DIR REPORT FLOPSPY DEMO
#
# bundled-none: with an empty demo/traces/ (FLOPSPY_DEMO_TRACES), one line says so and nothing
# else is shown or written. bundled-labelled: a trace with a provenance is reported with its
# label, in the text and at the top of its HTML page; one without a provenance is left out.
# no-cpu-counters: the demo's CPU run recorded with a CPU backend that cannot start gets the
# report, its HTML, and one line saying why the CPU roofline is absent.
set -euo pipefail

case=$1
src=$2
report=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export FLOPSPY_REPORT=$report

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

case $case in
  bundled-none)
    mkdir -p "$tmp/traces/empty-folder"
    FLOPSPY_DEMO_TRACES=$tmp/traces "$src/scripts/demo-bundled" "$tmp/out" >"$tmp/stdout"
    cat "$tmp/stdout"
    [ "$(cat "$tmp/stdout")" = \
      "flopspy-demo: no GPU trace is bundled yet: see demo/traces/README.md" ] ||
      fail "expected the one 'none bundled' line"
    [ ! -e "$tmp/out" ] || fail "wrote $(ls "$tmp/out") with nothing bundled"
    ;;
  bundled-labelled)
    writer=$4
    mkdir -p "$tmp/traces/h200-seed" "$tmp/traces/unlabelled"
    "$writer" "$tmp/traces/h200-seed/trace.fspy"
    cp "$tmp/traces/h200-seed/trace.fspy" "$tmp/traces/unlabelled/"
    cat >"$tmp/traces/h200-seed/provenance.txt" <<'EOF'
title: the seed workload <test>
gpu: NVIDIA H200
driver: 580.159.04
cuda: 13.0
date: 2026-11-26
command: flopspy run -o DIR -- python3 tests/gpu/seed_workload.py
EOF
    FLOPSPY_DEMO_TRACES=$tmp/traces "$src/scripts/demo-bundled" "$tmp/out" >"$tmp/stdout" \
      2>"$tmp/stderr"
    cat "$tmp/stdout" "$tmp/stderr"
    label="recorded on NVIDIA H200 (driver 580.159.04, CUDA 13.0) on 2026-11-26, not on this machine"
    grep -qxF "== $label" "$tmp/stdout" || fail "no provenance label"
    grep -qxF "== bundled trace h200-seed: the seed workload <test>" "$tmp/stdout" ||
      fail "no title line"
    # The report itself: the three answers of the trace (its kernels and advice).
    grep -qx '  Run summary' "$tmp/stdout" || fail "no run summary"
    grep -qx '  Kernels by GPU time' "$tmp/stdout" || fail "no kernel table"
    grep -qx '  Advice' "$tmp/stdout" || fail "no advice"
    grep -q 'NVIDIA H100' "$tmp/stdout" || fail "the trace's own GPU is not shown"
    ! grep -q 'no GPU trace is bundled' "$tmp/stdout" || fail "said none bundled"
    ! grep -q 'unlabelled' "$tmp/stdout" || fail "showed a trace without provenance"
    grep -q 'unlabelled left out: no provenance.txt' "$tmp/stderr" || fail "no line for unlabelled"
    page=$tmp/out/bundled-h200-seed.html
    [ -s "$page" ] || fail "no $page"
    [ ! -e "$tmp/out/bundled-unlabelled.html" ] || fail "a page for the unlabelled trace"
    # The label right after <body>, escaped, and the page still one whole document.
    grep -o '<body[^>]*><p [^>]*><b>Bundled trace h200-seed</b> ([^<]*): [^<]*' "$page" |
      grep -qF "$label" || fail "no label at the top of the page"
    [ "$(grep -c '</html>' "$page")" = 1 ] || fail "the page was cut"
    grep -qF '(the seed workload &lt;test&gt;): ' "$page" || fail "provenance text not escaped"
    [ -s "$tmp/out/bundled-h200-seed.txt" ] || fail "no full text report"
    ;;
  no-cpu-counters)
    flopspy=$4
    demo=$5
    "$flopspy" run --cpu-roofline replay:/nonexistent -o "$tmp/run" -- "$demo" --quick --cpu-only
    "$src/scripts/demo-report" "$tmp/run" >"$tmp/stdout"
    cat "$tmp/stdout"
    grep -q ' cpu stream triad$' "$tmp/stdout" || fail "no regions"
    [ "$(grep -c '^flopspy-demo: no CPU roofline in this report' "$tmp/stdout")" = 1 ] ||
      fail "not one line saying why the CPU roofline is absent"
    grep -q 'CPU roofline (replay) unavailable: replay file: cannot open /nonexistent' \
      "$tmp/stdout" || fail "the reason is not given"
    grep -q "GFLOP/s and FLOPs per cycle" "$tmp/stdout" || fail "not said what counters add"
    [ -s "$tmp/run/report.html" ] || fail "no report.html"
    [ -s "$tmp/run/demo-trace.json" ] || fail "no Chrome trace"
    ;;
  *)
    echo "usage: demo_scripts_test.sh bundled-none|bundled-labelled|no-cpu-counters ..." >&2
    exit 2
    ;;
esac
echo "ok: $case"
