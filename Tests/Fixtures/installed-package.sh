#!/bin/sh
# installed-package.sh DEBS: installs the packages in DEBS into a throwaway copy of this machine
# (an overlay of its root in mount, network and pid namespaces of its own: the machine itself is
# not changed), then uses them as an administrator would, printing what each step shows.
set -eu
debs=$(cd "$1" && pwd)
exec unshare --mount --net --pid --fork --kill-child /bin/sh -s "$debs" <<'CONTAINER'
set -eu
debs=$1
work=$(mktemp -d)
mount --make-rprivate /
mount -t tmpfs tmpfs "$work"
mkdir -p "$work/upper" "$work/work" "$work/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$work/upper,workdir=$work/work" "$work/root"
root=$work/root
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys"
mount -t tmpfs -o mode=755 tmpfs "$root/run"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
mkdir -p "$root/debs"
mount --bind "$debs" "$root/debs"
exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /bin/sh -s <<'ROOT'
set -eu
ip link set lo up
# A fresh machine: nothing of an earlier deckd run on this one (the overlay hides it, the machine keeps it).
rm -rf /var/lib/deck /etc/deck
echo "== install"
DEBIAN_FRONTEND=noninteractive dpkg -i /debs/*.deb > /tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; exit 1; }
echo "user: $(id deck)"
test -L /etc/systemd/system/multi-user.target.wants/deckd.service && echo "unit: enabled"
echo "== verify"
systemd-analyze verify /lib/systemd/system/deckd.service && echo "verify: clean"
systemd-analyze security --offline=true /lib/systemd/system/deckd.service 2>&1 | tail -n 1
echo "== man"
man -P cat deckd 2>/dev/null | head -n 4 | tail -n 1
man -P cat deckctl 2>/dev/null | head -n 4 | tail -n 1
man -P cat 7 deck-plugin 2>/dev/null | head -n 4 | tail -n 1
man -P cat deck-check 2>/dev/null | head -n 4 | tail -n 1
echo "== check"
deck-check --static /usr/lib/deck/plugins/Tone.deckplugin || true
echo "== simulator"
deckd --simulator 127.0.0.1:0 --socket /tmp/sim.sock --state none --sink file:/tmp/sim.opus > /tmp/sim.log 2>&1 &
simulator=$!
tries=0
until grep -q "head unit simulator on" /tmp/sim.log || [ $tries -ge 100 ]; do sleep 0.1; tries=$((tries + 1)); done
grep -o "page from [^)]*" /tmp/sim.log || cat /tmp/sim.log
curl -s "$(sed -n 's/.*head unit simulator on \([^ ]*\) .*/\1/p' /tmp/sim.log)" | grep -o "<title>[^<]*</title>" || true
kill -KILL $simulator
wait $simulator 2>/dev/null || true
echo "== run"
# What the unit's RuntimeDirectory= and StateDirectory= make, then its ExecStart as its User=.
install -d -o deck -g deck -m 0750 /run/deck /var/lib/deck
exec_start=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/deckd.service)
setpriv --reuid=deck --regid=deck --init-groups --no-new-privs $exec_start > /tmp/deckd.log 2>&1 &
deckd=$!
tries=0
until deckctl status > /dev/null 2>&1 || [ $tries -ge 100 ]; do sleep 0.1; tries=$((tries + 1)); done
deckctl status || true
deckctl apps || true
deckctl launch org.deck.tone || true
kill -TERM $deckd 2>/dev/null || true
status=0
wait $deckd || status=$?
echo "deckd exit: $status"
sed 's/^/log: /' /tmp/deckd.log
echo "== purge"
dpkg --purge deckd deckctl libdeck-dev libdeck0 deck-swift-runtime > /dev/null 2>&1 && echo "purged"
test ! -e /var/lib/deck && echo "state removed"
ROOT
CONTAINER
