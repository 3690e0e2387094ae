#!/bin/sh
# Heavy mixed load at normal priority until killed: four busy loops per core, a loop that starts
# processes, and loops that stream and touch large buffers. Used by the isolation load test and
# deck-bench's isolation suite, which start it with setsid and kill its process group.
cores=$(nproc)
pids=""
i=0
while [ "$i" -lt $((cores * 4)) ]; do
    (while :; do :; done) &
    pids="$pids $!"
    i=$((i + 1))
done
(while :; do /bin/true; done) &
pids="$pids $!"
(while :; do head -c 268435456 /dev/zero | tail -c 1 >/dev/null; done) &
pids="$pids $!"
(while :; do dd if=/dev/zero of=/dev/null bs=64M count=4 2>/dev/null; done) &
pids="$pids $!"
trap 'kill $pids 2>/dev/null; exit 0' TERM INT
wait
