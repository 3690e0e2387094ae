#!/usr/bin/env bash
# make-deb.sh BIN VERSION [OUT]: Debian packages from the build in BIN, into OUT (default .build/deb),
# checked by lintian (an error fails). dpkg-buildpackage runs over sources staged in OUT/deck-VERSION.
set -euo pipefail
bin=$(cd "$1" && pwd) version=$2
cd "$(dirname "$0")/.."
out=${3:-.build/deb}
stage=$out/deck-$version
rm -rf "$stage" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$stage"
cp -R Makefile dist sdk "$stage/"
mkdir -p "$stage/Sources"
cp -R Sources/DeckABI Sources/DeckSDK "$stage/Sources/"  # the Swift SDK libdeck-dev ships as sources
cp -R dist/debian "$stage/debian"
# -d: the build needs Swift, which is not a Debian package (the build was made beforehand).
(cd "$stage" && DECK_BIN="$bin" dpkg-buildpackage -b -us -uc -d --no-sign)
lintian --fail-on error,warning "$out"/deck_"$version"_*.changes
ls -1 "$out"/*.deb
