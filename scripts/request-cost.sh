#!/bin/bash
# Instructions deckd runs per control request, counted by callgrind (valgrind): the same count on
# every run and machine, where times on a shared VM move by 2×. deckd starts idle (no plugins) on
# its own socket; a client sends N1 then, in a second run, N2 requests one at a time, and the
# difference of the two totals over N2 − N1 is the cost of one request, start-up cancelled out.
#   scripts/request-cost.sh BIN [METHOD...]     BIN holds deckd (make request-cost passes the release build)
set -euo pipefail
bin=$1
shift
methods=("$@")
[ ${#methods[@]} -gt 0 ] || methods=(no.such runtime.info session.get nowPlaying.get)
small=200 large=2200

# Total instructions of deckd answering COUNT requests for METHOD.
total() {
  local method=$1 count=$2 dir
  dir=$(mktemp -d)
  valgrind --tool=callgrind --callgrind-out-file="$dir/out" "$bin/deckd" --socket "$dir/s" --state none \
    --sink "file:$dir/o.opus" --log-level warning --isolation inline --plugins "$dir/none" > "$dir/log" 2>&1 &
  local pid=$!
  for _ in $(seq 600); do [ -S "$dir/s" ] && break; sleep 0.1; done
  python3 - "$dir/s" "$method" "$count" <<'PY'
import socket, sys
client = socket.socket(socket.AF_UNIX)
client.connect(sys.argv[1])
request = ('{"jsonrpc":"2.0","method":"%s","id":1}\n' % sys.argv[2]).encode()
answers = client.makefile("rb")
for _ in range(int(sys.argv[3])):
    client.sendall(request)
    answers.readline()
PY
  kill -TERM "$pid"
  wait "$pid" || true
  awk '/^summary:|^totals:/ { print $2; exit }' "$dir/out"
  rm -rf "$dir"
}

echo "| request | instructions per request (deckd, callgrind) |"
echo "|---|---|"
for method in "${methods[@]}"; do
  a=$(total "$method" $small)
  b=$(total "$method" $large)
  echo "| $method | $(( (b - a) / (large - small) )) |"
done
