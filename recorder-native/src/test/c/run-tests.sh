#!/bin/sh
# make test: the native writer, checked by an independent minimal reader (zcap_verify).
# 1. 4 threads x 50000 calls, closed: every record present once, every SEAL matches, dense sequence numbers.
# 2. 3 threads x 2000 calls, then SIGKILL while thread 0 is inside a call: every completed record kept.
# 3. SIGKILL inside zcap_open, after the function table, before the file has its name: no capture file.
# 4. SIGKILL at 40 moments early in a run: every capture file that exists holds its function table first.
set -eu
B=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "recorder-native test FAILED: $*" >&2; exit 1; }

"$B/zcap_demo" "$T/a.zcap" 4 50000 close
out=$("$B/zcap_verify" "$T/a.zcap")
echo "closed capture: $out"
# records: function table, marker, 4 thread names, 1 blob, 3 strings, 4*50000*2 calls, 1 process end
expect="enter=200000 leave=200000 blob=1 string=3 end=1 seals_bad=0 seq_dups=0 seq_max=400010"
case "$out" in *"$expect"*) ;; *) fail "expected '$expect'";; esac

set +e
"$B/zcap_demo" "$T/k.zcap" 3 2000 kill
rc=$?
set -e
[ "$rc" -eq 137 ] || fail "zcap_demo kill mode should die of SIGKILL (137), got $rc"
out=$("$B/zcap_verify" "$T/k.zcap")
echo "killed capture: $out"
expect="enter=6001 leave=6000 blob=1 string=3 end=0 seals_bad=0 seq_dups=0"
case "$out" in *"$expect"*) ;; *) fail "expected '$expect'";; esac

set +e
ZCAP_TEST_KILL_BEFORE_NAME=1 "$B/zcap_demo" "$T/n.zcap" 1 10 close 2>/dev/null
rc=$?
set -e
[ "$rc" -eq 137 ] || fail "zcap_demo killed inside zcap_open should die of SIGKILL (137), got $rc"
[ ! -e "$T/n.zcap" ] || fail "a capture killed before its function table had its name is visible"
left=$(cd "$T" && ls | grep '^n\.zcap' || true)
case "$left" in
    "") echo "killed inside zcap_open: no file (O_TMPFILE)";;
    n.zcap.*.tmp) echo "killed inside zcap_open: no capture file, the temporary $left (no O_TMPFILE here)";;
    *) fail "killed inside zcap_open left $left";;
esac

seen=0
for i in $(seq 1 40); do
    "$B/zcap_demo" "$T/r$i.zcap" 2 20000 close 2>/dev/null &
    pid=$!
    sleep "0.00$((i % 10))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    if [ -e "$T/r$i.zcap" ]; then
        seen=$((seen + 1))
        out=$("$B/zcap_verify" "$T/r$i.zcap") || fail "run $i: killed capture does not verify"
        case "$out" in *"table=1 table_first=1"*) ;; *) fail "run $i: killed capture lacks its function table: $out";; esac
    fi
done
echo "killed at 40 moments: $seen capture files, each with its function table first"
echo "recorder-native tests: 4 passed"
