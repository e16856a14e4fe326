#!/bin/bash
# Runs llama.cpp's test-backend-ops (mode test: every case of an operation on the CUDA backend,
# compared with the CPU backend's reference implementation) on zluda's driver, one process per
# operation, so that one operation that aborts or runs out of time does not hide the others.
#
#   samples/llama/run-backend-ops-zluda.sh BIN OUT [OP...]
#
# BIN: the folder of build-llama.sh's binaries (test-backend-ops and its libraries); OUT: a folder for
# OUT/OP.txt (the program's output) and OUT/OP.status ("exit CODE SECONDS"); OPs: operation names as
# test-backend-ops -o takes them (default: every operation the H200 run in H200_RESULTS passed, in
# ascending order of its case count). An OP whose OUT/OP.status exists is skipped (re-run: delete it).
# Environment: ZLUDA (default dist/bin/zluda of this repository), TIMEOUT seconds per operation
# (default 300), H200_RESULTS (test-backend-ops' output on the H200, plain or .xz), ZLUDA_RUN_ARGS.
set -uo pipefail
bin=$(cd "${1:?usage: run-backend-ops-zluda.sh BIN OUT [OP...]}" && pwd)
out=${2:?usage: run-backend-ops-zluda.sh BIN OUT [OP...]}
shift 2
repo=$(cd "$(dirname "$0")/../.." && pwd)
zluda=${ZLUDA:-$repo/dist/bin/zluda}
timeout_s=${TIMEOUT:-300}
mkdir -p "$out"
ops=("$@")
if [ ${#ops[@]} -eq 0 ]; then
    h200=${H200_RESULTS:?give OPs or set H200_RESULTS}
    cat_h200() { case "$h200" in *.xz) xz -dc "$h200" ;; *) cat "$h200" ;; esac; }
    mapfile -t ops < <(cat_h200 | sed 's/\x1b\[[0-9;]*m//g' | sed -z 's/ggml_backend_cuda_graph_compute: [^\n]*\n//g' | grep -E '^  [A-Z_0-9]+\(.*: OK$' \
        | sed -E 's/^  ([A-Z_0-9]+)\(.*/\1/' | sort | uniq -c | sort -n | awk '{print $2}')
fi
for op in "${ops[@]}"; do
    [ -e "$out/$op.status" ] && continue
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout "$timeout_s" "$zluda" run ${ZLUDA_RUN_ARGS:-} -- "$bin/test-backend-ops" test -b CUDA0 -o "$op" > "$out/$op.txt" 2>&1 < /dev/null
    code=$?
    secs=$(( $(date +%s) - start ))
    echo "exit $code $secs" > "$out/$op.status"
    # (with CUDA graphs on, ggml logs the graphs' warm-up between a case's name and its verdict)
    ok=$(sed 's/\x1b\[[0-9;]*m//g' "$out/$op.txt" | sed -z 's/ggml_backend_cuda_graph_compute: [^\n]*\n//g' | grep -c ': OK$')
    fail=$(sed 's/\x1b\[[0-9;]*m//g' "$out/$op.txt" | sed -z 's/ggml_backend_cuda_graph_compute: [^\n]*\n//g' | grep -c 'FAIL$')
    echo "$op: exit $code, ${secs} s, OK $ok, FAIL $fail"
done
