#!/usr/bin/env bash
# Packs each first-party plugin (Plugins/NAME with a manifest.json) into BIN/plugins/NAME.deckplugin:
# its manifest, its library and its data files (everything but the Swift sources).
set -euo pipefail
bin="$1"
for dir in Plugins/*/; do
  name=$(basename "$dir")
  [ -f "$dir/manifest.json" ] || continue  # a library the apps share, not a plugin
  bundle="$bin/plugins/$name.deckplugin"
  mkdir -p "$bundle"
  find "$dir" -maxdepth 1 -type f ! -name '*.swift' -exec cp {} "$bundle/" \;
  # A new file renamed in: copied over in place, the old library's code would change under a running host.
  cp "$bin/lib$name.so" "$bundle/.lib$name.so.new"
  mv -f "$bundle/.lib$name.so.new" "$bundle/lib$name.so"
  chmod -R go-w "$bundle"
  chmod -R o+rX "$bundle"
done
# The head unit simulator's page, served by `deckd --simulator` from BIN/simulator.
mkdir -p "$bin/simulator"
cp dist/simulator/*.html dist/simulator/*.css dist/simulator/*.js "$bin/simulator/"
