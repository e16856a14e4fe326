#!/bin/sh
# make test: the native writer, checked by an independent minimal reader (zcap_verify).
# 1. 4 threads x 50000 calls, closed: every record present once, every SEAL matches, dense sequence numbers.
# 2. 3 threads x 2000 calls, then SIGKILL while thread 0 is inside a call: every completed record kept.
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
echo "recorder-native tests: 2 passed"
