#!/usr/bin/env bash
# Packs each first-party plugin (Plugins/NAME) into BIN/plugins/NAME.deckplugin.
set -euo pipefail
bin="$1"
for dir in Plugins/*/; do
  name=$(basename "$dir")
  bundle="$bin/plugins/$name.deckplugin"
  mkdir -p "$bundle"
  cp "$dir/manifest.json" "$bundle/manifest.json"
  cp "$bin/lib$name.so" "$bundle/lib$name.so"
  chmod go-w "$bundle" "$bundle/lib$name.so" "$bundle/manifest.json"
done
