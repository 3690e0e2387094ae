#!/usr/bin/env bash
# make demo: shows, end to end, everything the runtime does today. BIN is the release build folder.
set -euo pipefail
bin="$1"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2> /dev/null || true; rm -rf "$work"' EXIT  # a step that fails leaves no deckd behind
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# Waits for the deckd PID logging to LOG to be ready; one that ended or never got there shows its log and ends the demo.
ready() {
  for _ in $(seq 200); do grep -q "deckd: ready" "$1" && return 0; kill -0 "$2" 2> /dev/null || break; sleep 0.05; done
  cat "$1"
  if grep -q "another program holds the port" "$1"; then
    echo "deckd did not start: a port it listens on is taken (its embedded default is 127.0.0.1:8000; ss -ltnp shows by whom)" >&2
  else
    echo "deckd did not start; the demo stops here" >&2
  fi
  exit 1
}

step "deckd --version"
"$bin/deckd" --version

step "A third-party plugin built with plain cc against sdk/include only (examples/plugin-c)"
ls -l examples/plugin-c/build/Hello.deckplugin

step "A broken bundle: it asks for an entitlement that does not exist"
mkdir -p "$work/extra/Broken.deckplugin"
cat > "$work/extra/Broken.deckplugin/manifest.json" <<'JSON'
{"id": "org.example.broken", "name": "Broken", "version": "1.0.0", "abi": 1,
 "library": "libbroken.so", "entitlements": ["audio", "warp-drive"]}
JSON
cat "$work/extra/Broken.deckplugin/manifest.json"

step "deckd --check-config: the audio zones example and the policy, checked without starting anything"
"$bin/deckd" --check-config --config examples/configs/zones.json --policy examples/configs/policy.json --state none
echo '{"session": {"duckDb": 6}}' > "$work/bad.json"
"$bin/deckd" --check-config --config "$work/bad.json" || echo "(exit status $?: a config error, named)"

step "deckd: first-party Swift plugin + C example + the broken bundle, under examples/configs/policy.json"
echo "(the policy grants Tone audio and Hello only communication, so Hello loads without audio)"
"$bin/deckd" --plugins "$bin/plugins" --plugins examples/plugin-c/build --plugins "$work/extra" \
  --policy examples/configs/policy.json --socket "$work/first.sock" --state none 2> "$work/deckd.log" &
pid=$!
ready "$work/deckd.log" "$pid"
sleep 0.3
step "SIGTERM: plugins deactivated and destroyed in reverse order, exit status 0"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
cat "$work/deckd.log"
echo "deckd exit status: $status"
[ "$status" -eq 0 ]

step "Rendering 5 s of Tone (440 Hz left, 660 Hz right) to an Ogg Opus file, no client needed"
"$bin/deckd" --plugins "$bin/plugins" --freewheel --duration 5 --play org.deck.tone:stereo-440-660 \
  --sink "file:$work/tone.opus" --socket "$work/render.sock" --log-level warning
echo "opusinfo says:"
opusinfo "$work/tone.opus" | sed 's/^/  /'
echo "ffprobe says: $(ffprobe -v error -show_entries stream=codec_name,channels,sample_rate:format=duration \
  -of compact=p=0:nk=0 "$work/tone.opus" | tr '\n' ' ')"

step "The embedded default: deckd streams live on http://127.0.0.1:8000/stream.opus; ffmpeg joins late"
sock="$work/deck.sock"
# A private D-Bus session bus, so the MPRIS step below touches nothing of this machine's.
dbus-daemon --session --nofork --nosyslog --address="unix:path=$work/bus" 2> /dev/null &
bus=$!
export DBUS_SESSION_BUS_ADDRESS="unix:path=$work/bus"
for _ in $(seq 100); do [ -S "$work/bus" ] && break; sleep 0.05; done
"$bin/deckd" --socket "$sock" --state "$work/state.json" --mpris --play org.deck.tone:sine-1000 2> "$work/live.log" &
pid=$!
ready "$work/live.log" "$pid"
sleep 1
ffmpeg -v error -nostdin -y -i http://127.0.0.1:8000/stream.opus -t 2 -ac 1 "$work/live.wav"
echo "ffmpeg recorded $(ffprobe -v error -show_entries format=duration -of csv=p=0 "$work/live.wav") s from the live stream"

step "deckctl over the JSON-RPC socket: status, apps, sinks, session"
"$bin/deckctl" --socket "$sock" status
"$bin/deckctl" --socket "$sock" apps
"$bin/deckctl" --socket "$sock" sinks
"$bin/deckctl" --socket "$sock" session
echo "-- a navigation prompt from the integrator ducks the music to -14 dB while its connection lasts:"
python3 - "$sock" <<'PY' &
import socket, sys, time
client = socket.socket(socket.AF_UNIX)
client.connect(sys.argv[1])
client.sendall(b'{"jsonrpc":"2.0","method":"session.request","params":{"context":"navigation","name":"prompt"},"id":1}\n')
print("prompt:", client.recv(4096).decode().strip(), flush=True)
time.sleep(1.5)
PY
prompt=$!
sleep 0.8
"$bin/deckctl" --socket "$sock" session
wait "$prompt"
sleep 0.2
echo "-- the prompt's connection closed, and its focus with it:"
"$bin/deckctl" --socket "$sock" session
echo "-- volume groups: the keys step the group of what plays (media), in 1.5 dB steps:"
"$bin/deckctl" --socket "$sock" volume -4
"$bin/deckctl" --socket "$sock" volume media 40
echo "-- now playing: one center for the car; Tone publishes what it plays and queues its signals:"
"$bin/deckctl" --socket "$sock" now-playing
"$bin/deckctl" --socket "$sock" next
"$bin/deckctl" --socket "$sock" now-playing --format '{{artist}} - {{title}} ({{status}}, {{position}} of {{duration}})'
"$bin/deckctl" --socket "$sock" queue
echo "-- the same player over MPRIS, steered by playerctl:"
playerctl -p deck metadata --format 'playerctl sees: {{artist}} - {{title}}'
playerctl -p deck play-pause
echo "after playerctl play-pause: $("$bin/deckctl" --socket "$sock" now-playing --format '{{status}} at {{position}}')"
playerctl -p deck position 4
playerctl -p deck play-pause
echo "after playerctl position 4 and play-pause: $("$bin/deckctl" --socket "$sock" now-playing --format '{{status}} at {{position}}')"
"$bin/deckctl" --socket "$sock" call player.like || echo "exit status: $? (Tone did not enable like; it never reached Tone)"
echo "-- the car's display: Tone's screen as the head unit lays it out (ids in brackets), a selection plays:"
"$bin/deckctl" --socket "$sock" launch org.deck.tone sweep > /dev/null  # the screen shown is the last launched app's
"$bin/deckctl" --socket "$sock" ui | head -16
sine=$("$bin/deckctl" --socket "$sock" ui | sed -n 's/^  \[\([0-9]*\)\] Sine 1000 Hz.*/\1/p')
"$bin/deckctl" --socket "$sock" select "$sine" | sed -n '3,4p'
echo "-- driving starts: lists are cut to 12 rows, and Tone is told; the content tree plays too:"
"$bin/deckctl" --socket "$sock" display --driving on
"$bin/deckctl" --socket "$sock" ui | grep -E "driving|cut by|content:"
"$bin/deckctl" --socket "$sock" select /2/0 > /dev/null
"$bin/deckctl" --socket "$sock" now-playing --format 'after deckctl select /2/0: {{title}} ({{status}})'
"$bin/deckctl" --socket "$sock" display --driving off
echo "-- each app runs in a deck-plugin-host process of its own; Tone's is killed with SIGSEGV (a crash):"
tone_pid=$("$bin/deckctl" --socket "$sock" apps | sed -n 's/^org\.deck\.tone .* process \([0-9]*\).*/\1/p')
kill -SEGV "$tone_pid"
for _ in $(seq 100); do grep -q "org.deck.tone restarted" "$work/live.log" && break; sleep 0.05; done
sleep 0.3
grep -E "crashed|restarted" "$work/live.log" | sed 's/^/  /'
"$bin/deckctl" --socket "$sock" apps
"$bin/deckctl" --socket "$sock" now-playing --format 'deckd played on; Tone, restarted, resumed: {{title}} ({{status}})'
echo "-- the sandbox each host shuts itself in before the app's code loads (what holds on this kernel):"
grep "isolation: sandbox:" "$work/live.log" | sed 's/^/  /'
tone_pid=$("$bin/deckctl" --socket "$sock" apps | sed -n 's/^org\.deck\.tone .* process \([0-9]*\).*/\1/p')
echo "  Tone's host: name $(cat "/proc/$tone_pid/comm"), uid $(awk '/^Uid:/ {print $2}' "/proc/$tone_pid/status"), parent $(awk '/^PPid:/ {print $2}' "/proc/$tone_pid/status") (deckd is $pid; forked by the zygote)"
echo "-- errors are JSON-RPC errors with exit status 1:"
"$bin/deckctl" --socket "$sock" launch org.example.absent || echo "exit status: $?"
echo "-- a client may not write files outside the integrator's output folder:"
"$bin/deckctl" --socket "$sock" call sinks.add '{"uri":"file:/etc/passwd"}' || echo "exit status: $?"
echo "-- SIGUSR1 logs a status line; SIGHUP rescans the plugin folders; neither stops deckd:"
kill -USR1 "$pid"; kill -HUP "$pid"; sleep 0.2
"$bin/deckctl" --socket "$sock" status | head -1
kill -TERM "$pid"; wait "$pid"
grep -E "sink|output|client|playing|control|session|SIGUSR1|rescan|mpris|nowplaying" "$work/live.log" | sed 's/^/  /'

step "State survives a restart: the last source and the volumes come back, nothing plays until asked"
"$bin/deckd" --socket "$sock" --state "$work/state.json" --sink "file:$work/resumed.opus" 2> "$work/restart.log" &
pid=$!
ready "$work/restart.log" "$pid"
grep "state:" "$work/restart.log" | sed 's/^/  /'
"$bin/deckctl" --socket "$sock" session
"$bin/deckctl" --socket "$sock" play
"$bin/deckctl" --socket "$sock" now-playing --format 'after deckctl play: {{title}} ({{status}})'
kill -TERM "$pid"; wait "$pid"
kill "$bus"; wait "$bus" 2> /dev/null || true

step "The output picker: app audio to the rear seats, navigation pinned to the cabin"
cat > "$work/picker.json" <<'JSON'
{"pins": {"navigation": "Cabin", "systemSound": "Cabin"}}
JSON
"$bin/deckd" --config "$work/picker.json" --plugins "$bin/plugins" --socket "$work/picker.sock" --state none \
  --sink "file:$work/cabin.opus?name=Cabin&kind=speakers" --sink "file:$work/rear.opus?name=Rear%20seats&kind=headphones" \
  --play org.deck.tone:sine-440 2> "$work/picker.log" &
pid=$!
ready "$work/picker.log" "$pid"
sleep 1
"$bin/deckctl" --socket "$work/picker.sock" sinks select 2
sleep 1
kill -TERM "$pid"; wait "$pid"
for file in cabin rear; do
  for window in "0.2:0.8" "1.4:1.9"; do
    level=$(ffmpeg -v info -nostdin -i "$work/$file.opus" -af "atrim=${window},volumedetect" -f null - 2>&1 \
      | sed -n 's/.*mean_volume: //p')
    echo "  $file.opus from ${window/:/ s to } s: mean ${level:-silence}"
  done
done

step "Audio zones: the front and the rear seats as two cars: Stations in the front, Tone in the rear, a call and the rear's volume keys"
cat > "$work/zones.json" <<'JSON'
{"zones": [{"id": "front", "name": "Front seats", "sinks": ["Front"], "sharedContexts": ["safety"]},
           {"id": "rear", "name": "Rear seats", "sinks": ["Rear"]}]}
JSON
cat "$work/zones.json"
"$bin/deckd" --config "$work/zones.json" --plugins "$bin/plugins" --plugins examples/ui-c/build --socket "$work/zones.sock" --state none \
  --sink "file:$work/zone-front.opus?name=Front&kind=speakers" --sink "file:$work/zone-rear.opus?name=Rear&kind=headphones" 2> "$work/zones.log" &
pid=$!
ready "$work/zones.log" "$pid"
"$bin/deckctl" --socket "$work/zones.sock" --zone rear launch org.deck.tone sine-440
"$bin/deckctl" --socket "$work/zones.sock" --zone front launch org.example.stations e659
"$bin/deckctl" --socket "$work/zones.sock" zones | sed 's/^/  /'
sleep 1.5
echo "  a phone call in the front for 1.5 s (session.request call in zone front; the focus ends with the phone's connection):"
python3 - "$work/zones.sock" <<'PY'
import socket, sys, time
phone = socket.socket(socket.AF_UNIX); phone.connect(sys.argv[1])
phone.sendall(b'{"jsonrpc":"2.0","id":1,"method":"session.request","params":{"context":"call","type":"gainTransient","name":"phone","zone":"front"}}\n')
print("    " + phone.makefile().readline().strip()); sys.stdout.flush()
time.sleep(1.5)
phone.close()
PY
echo "  the rear's volume keys, ten steps down: $("$bin/deckctl" --socket "$work/zones.sock" --zone rear --json volume -10 \
  | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["adjusted"], [g["index"] for g in r["groups"] if g["name"]==r["adjusted"]][0])')"
echo "  the front's media index stays: $("$bin/deckctl" --socket "$work/zones.sock" --zone front --json volume \
  | python3 -c 'import json,sys; print([g["index"] for g in json.load(sys.stdin)["groups"] if g["name"]=="media"][0])')"
sleep 2
kill -TERM "$pid"; wait "$pid"
echo "  levels per file (ffmpeg volumedetect): before the call, during it, after the rear's keys"
for file in zone-front zone-rear; do
  line="  $file.opus:"
  for window in "0.3:1.2" "1.9:2.8" "3.8:4.6"; do
    level=$(ffmpeg -v info -nostdin -i "$work/$file.opus" -af "atrim=${window},volumedetect" -f null - 2>&1 \
      | sed -n 's/.*mean_volume: //p')
    line="$line  ${window/:/–} s ${level:-silence}"
  done
  echo "$line"
done
echo "  (the front pauses for its call while the rear plays on; the rear's keys lower the rear only)"

step "A small complete audio app in C (examples/ui-c): its screen, a station played from the content tree, remote commands"
"$bin/deckd" --plugins examples/ui-c/build --socket "$work/stations.sock" --state none --sink "file:$work/stations.opus" \
  2> "$work/stations.log" &
stations=$!
ready "$work/stations.log" "$stations"
"$bin/deckctl" --socket "$work/stations.sock" ui | sed 's/^/  /'
"$bin/deckctl" --socket "$work/stations.sock" select /0/2 > /dev/null
echo "  now playing: $("$bin/deckctl" --socket "$work/stations.sock" now-playing --format '{{title}} · {{artist}} · {{status}}')"
"$bin/deckctl" --socket "$work/stations.sock" next > /dev/null
echo "  after next:  $("$bin/deckctl" --socket "$work/stations.sock" now-playing --format '{{title}}')"

step "deck-check: bundles checked before they ship (the C app, statically and run under a deckd of its own; then the broken bundle)"
"$bin/deck-check" --seconds 2 examples/ui-c/build/Stations.deckplugin | sed 's/^/  /'
status=0
"$bin/deck-check" "$work/extra/Broken.deckplugin" > "$work/check.txt" || status=$?
sed 's/^/  /' "$work/check.txt"
echo "  exit status $status (1: errors found)"

step "Hot reload for plugin authors: deckd --watch loads a rebuilt bundle again, and it plays on from where it was"
mkdir -p "$work/watch"
cp -r "$bin/plugins/Tone.deckplugin" "$work/watch/"
chmod o+x "$work"  # the host process runs as a uid of its own: it must reach the bundle
chmod -R go-w,o+rX "$work/watch"
"$bin/deckd" --watch --plugins "$work/watch" --socket "$work/watch.sock" --state none --sink "file:$work/watch.opus" 2> "$work/watch.log" &
watcher=$!
ready "$work/watch.log" "$watcher"
"$bin/deckctl" --socket "$work/watch.sock" launch org.deck.tone sine-440 > /dev/null
sleep 3
cp "$work/watch/Tone.deckplugin/libTone.so" "$work/libTone.new" && mv "$work/libTone.new" "$work/watch/Tone.deckplugin/libTone.so"
echo "  (libTone.so replaced, as a build would)"
for _ in $(seq 100); do grep -q "resuming org.deck.tone" "$work/watch.log" && break; sleep 0.05; done
sleep 0.5
grep -E "reloaded from|resuming org.deck.tone" "$work/watch.log" | sed 's/^/  /'
echo "  now playing: $("$bin/deckctl" --socket "$work/watch.sock" now-playing --format '{{title}} · {{status}}')"
kill -TERM "$watcher"; wait "$watcher" || true

step "The head unit simulator: deckd --simulator, driven in headless Chromium as an author clicks it"
"$bin/deckd" --plugins "$bin/plugins" --simulator 127.0.0.1:0 --socket "$work/sim.sock" --state none \
  --sink "file:$work/sim.opus" --sink http://127.0.0.1:0/stream.opus 2> "$work/sim.log" &
simulator=$!
ready "$work/sim.log" "$simulator"
grep -o "head unit simulator on [^ ]*" "$work/sim.log" | sed 's/^/  /'
"$bin/deckctl" --socket "$work/sim.sock" launch org.deck.tone silence > /dev/null
mkdir -p .build/demo-simulator
/usr/bin/python3 Tests/Fixtures/simulator-drive.py tour "$(sed -n 's/.*head unit simulator on \([^ ]*\) .*/\1/p' "$work/sim.log")" \
  "$work/sim.sock" "$bin/deckctl" .build/demo-simulator "Sine 1000 Hz" 2> "$work/simulator.log" | python3 -c '
import json, sys
page = json.load(sys.stdin)
burst = page["burst"]
print("  screen: %s; a screenshot per profile (748x456, 800x480, 768x1024, 1920x720) in %s" % (page["title"], sys.argv[1]))
print("  browsed to and played: %s; a row clicked, now playing: %s" % (page["browsed"], page["nowPlayingTitle"]))
print("  paused with deckctl, the page followed: %s" % page["pausedFromOutside"])
print("  driving: %d rows -> %d (%d hidden, marked); %s" % (page["rowsParked"], page["rowsDriving"], page["droppedDriving"], page["quotaDriving"]))
print("  volume keys: media %d -> %d" % (page["mediaBefore"], page["mediaAfter"]))
print("  %d notifications in %.2f s, %d lost; ui.changed to screen drawn %.1f ms (median)"
      % (burst["events"], burst["seconds"], burst["gaps"], page["eventToScreenMs"]["p50"]))
' .build/demo-simulator || { echo "  the simulator step failed:"; tail -n 5 "$work/simulator.log"; }
kill -TERM "$simulator"; wait "$simulator" || true

step "Numbers, strings and addresses from outside are checked where they enter: refused with their range or bound, and deckd plays on"
"$bin/deckctl" --socket "$work/stations.sock" volume media +9223372036854775807 2>&1 | sed 's/^/  /' || true
"$bin/deckctl" --socket "$work/stations.sock" call player.seek '{"position": 1e19}' 2>&1 | sed 's/^/  /' || true
"$bin/deckctl" --socket "$work/stations.sock" launch org.example.stations "$(printf 'x%.0s' $(seq 5000))" 2>&1 | sed 's/^/  /' || true
"$bin/deckctl" --socket "$work/stations.sock" call sinks.add '{"uri": "rtp://127.0.0.1:5004?pt=96&sdp=/etc/passwd"}' 2>&1 | sed 's/^/  /' || true
"$bin/deckctl" --socket "$work/stations.sock" call sinks.add '{"uri": "http://0.0.0.0:0/open.opus"}' 2>&1 | sed 's/^/  /' || true
# Valid JSON that no 64-bit integer holds: the request's own error, with its id, as a raw client sends it.
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"volume.set\",\"params\":{\"group\":\"media\",\"index\":18446744073709551616}}\n")
print("  raw client: " + s.recv(4096).decode().strip())' "$work/stations.sock" || true
echo "  still playing: $("$bin/deckctl" --socket "$work/stations.sock" now-playing --format '{{title}} {{status}}')"
echo '{"version":1,"lastSource":{"plugin":"org.example.stations","position":1e19}}' > "$work/bad-state.json"
kill -TERM "$stations"; wait "$stations" || true
"$bin/deckd" --plugins examples/ui-c/build --socket "$work/state.sock" --state "$work/bad-state.json" --freewheel --duration 1 \
  --play org.example.stations:a440 --sink "file:$work/fresh.opus" 2>&1 | grep -E "warning state" | sed 's/^/  /' || true
echo "  (the file is kept as $(ls "$work" | grep bad-state.json.corrupt | head -1))"

step "Files are never clobbered: rendering again over tone.opus is refused (exit 1), the file kept"
"$bin/deckd" --plugins "$bin/plugins" --freewheel --duration 1 --play org.deck.tone:sine-440 \
  --sink "file:$work/tone.opus" --socket "$work/again.sock" 2>&1 | grep -E "error" || true
echo "tone.opus still plays $(ffprobe -v error -show_entries format=duration -of csv=p=0 "$work/tone.opus") s"

step "Usage errors exit 2 with a hint; a media folder that would show plugins the clients' recordings is one"
"$bin/deckd" --sink ftp://example 2>&1 || echo "exit status: $?"
printf '{"isolation": {"mediaFolders": ["%s"]}, "files": {"directory": "%s/recordings"}}' "$work" "$work" > "$work/media.json"
"$bin/deckd" --config "$work/media.json" --state none 2>&1 || echo "exit status: $?"

step "Embedding: an HMI hosts the runtime in its own libuv loop through libdeck (examples/embed-c: a client handle, reply tags, the message queue)"
chmod o+rx "$work"  # the plugins' host processes run as uids of their own: the installed bundles must be readable to them
make -s install-files PREFIX="$work/prefix" BIN="$bin" > /dev/null
make -s -C examples/embed-c PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" OUT="$work/embed"
"$work/embed" "$work/prefix/lib/deck/plugins" "$work/embedded.opus" 2 | sed 's/^/  /'
echo "  opusinfo: $(opusinfo "$work/embedded.opus" 2>&1 | grep -E 'Playback length' | sed 's/^[[:space:]]*//')"
echo "  The same with packets taken on the audio thread into the example's own ring (API 1.4; the runtime wakes nobody per packet):"
"$work/embed" --audio-thread "$work/prefix/lib/deck/plugins" "$work/embedded-rt.opus" 2 | grep -E '^wrote|ring' | sed 's/^/  /'
echo "  opusinfo: $(opusinfo "$work/embedded-rt.opus" 2>&1 | grep -E 'Playback length' | sed 's/^[[:space:]]*//')"

step "Prompts: a sentence spoken with espeak-ng under navigation focus ducks Tone, which comes back after"
"$bin/deckd" --plugins "$bin/plugins" --state none --sink "file:$work/prompt.opus" --socket "$work/prompt.sock" \
  --play org.deck.tone:sine-440 2> "$work/prompt.log" &
prompting=$!
for _ in $(seq 100); do grep -q "playing sine-440" "$work/prompt.log" && break; sleep 0.05; done
sleep 1
"$bin/deckctl" --socket "$work/prompt.sock" launch org.deck.prompts "Turn left in two hundred metres, then keep right." | sed 's/^/  /'
"$bin/deckctl" --socket "$work/prompt.sock" session | sed 's/^/  /'
for _ in $(seq 100); do grep -q "org.deck.prompts abandoned focus" "$work/prompt.log" && break; sleep 0.05; done
sleep 1
echo "  a text espeak-ng crashes on ('.a' 90 times) is refused, and the next prompt is said:"
"$bin/deckctl" --socket "$work/prompt.sock" launch org.deck.prompts "$(printf '.a%.0s' $(seq 90))" 2>&1 | sed 's/.*: start failed: /  /' || true
"$bin/deckctl" --socket "$work/prompt.sock" launch org.deck.prompts "Then keep left." | sed 's/^/  /'
kill -TERM "$prompting"; wait "$prompting" || true
for window in "0.2:0.9" "1.3:2.5" "4.5:5.0"; do
  level=$(ffmpeg -v info -nostdin -i "$work/prompt.opus" -af "atrim=${window},bandpass=f=440:width_type=q:w=8,volumedetect" -f null - 2>&1 \
    | sed -n 's/.*mean_volume: //p')
  echo "  the tone's level from ${window/:/ s to } s: ${level:-silence}"
done

step "Radio and Library: a station from a local Icecast server, an album from a library ffmpeg makes (and one copied in while it plays), a prompt ducking it, each source's loudness"
chmod o+rx "$work"
mkdir -p "$work/apps/org.deck.radio" "$work/media"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -m 777 "$work/icecast"
sed -e "s/<port>8100</<port>$port</" -e "s|@LOGDIR@|$work/icecast|" scripts/demo-icecast.xml > "$work/icecast/icecast.xml"
# icecast2 runs as root only when it may drop to nobody; as anyone else it keeps its user.
[ "$(id -u)" -eq 0 ] || sed -i 's|<changeowner>.*</changeowner>||' "$work/icecast/icecast.xml"
icecast2 -c "$work/icecast/icecast.xml" > /dev/null 2>&1 &
icecast=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/status-json.xsl" > /dev/null && break; sleep 0.05; done
# The station: quieter on air than the library (a sine at −24 dBFS), its title changed by the "broadcaster".
ffmpeg -v error -nostdin -re -f lavfi -i "sine=f=330:r=48000,volume=-6dB" -ac 2 -c:a libmp3lame -b:a 128k \
  -content_type audio/mpeg -f mp3 "icecast://source:deck@127.0.0.1:$port/live.mp3" &
source=$!
sed "s/127.0.0.1:8100/127.0.0.1:$port/" Plugins/Radio/stations.json > "$work/apps/org.deck.radio/stations.json"
cp Plugins/Radio/*.png "$work/apps/org.deck.radio/"
Tests/Fixtures/make-library.sh "$work/media/music" 6
chmod -R o+rX "$work/media"
cat > "$work/apps.json" <<JSON
{"dataDirectory": "$work/apps", "isolation": {"mediaFolders": ["$work/media/music"]}}
JSON
dbus-daemon --session --nofork --nosyslog --address="unix:path=$work/bus2" 2> /dev/null &
bus=$!
export DBUS_SESSION_BUS_ADDRESS="unix:path=$work/bus2"
for _ in $(seq 100); do [ -S "$work/bus2" ] && break; sleep 0.05; done
"$bin/deckd" --config "$work/apps.json" --plugins "$bin/plugins" --state none --mpris --sink "file:$work/apps.opus" \
  --socket "$work/apps.sock" 2> "$work/apps.log" &
apps=$!
for _ in $(seq 200); do grep -q "loudness measured" "$work/apps.log" && break; sleep 0.05; done
grep -E "library: [0-9]+ tracks|skipped|loudness measured" "$work/apps.log" | sed 's/^[^ ]* [a-z]* /  /'
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/status-json.xsl" | grep -q live.mp3 && break; sleep 0.05; done
"$bin/deckctl" --socket "$work/apps.sock" launch org.deck.radio "Deck MP3" | sed 's/^/  /'
sleep 2
curl -sf -u admin:deck "http://127.0.0.1:$port/admin/metadata?mount=/live.mp3&mode=updinfo&song=The%20Band%20-%20On%20Air" > /dev/null
sleep 4
echo "  deckctl now-playing: $("$bin/deckctl" --socket "$work/apps.sock" now-playing | head -1)"
echo "  playerctl: $(playerctl -p deck metadata --format '{{artist}} - {{title}} ({{album}})')"
"$bin/deckctl" --socket "$work/apps.sock" ui org.deck.radio | sed -n '2,8p'
sleep 4
"$bin/deckctl" --socket "$work/apps.sock" launch org.deck.library "$work/media/music/Loud Band/Loud Album/01 Track 1.flac" | sed 's/^/  /'
sleep 4
echo "  deckctl now-playing: $("$bin/deckctl" --socket "$work/apps.sock" now-playing | head -1)"
"$bin/deckctl" --socket "$work/apps.sock" ui org.deck.library | sed -n '2,5p'
artwork=$("$bin/deckctl" --socket "$work/apps.sock" --json ui org.deck.library | python3 -c 'import json,sys
ui = json.load(sys.stdin); row = ui["stack"][0]["sections"][0]["items"][0]; print(row.get("image", ""))')
[ -n "$artwork" ] && echo "  the cover, as ui.image: $("$bin/deckctl" --socket "$work/apps.sock" call ui.image "{\"app\":\"org.deck.library\",\"id\":$artwork}" \
  | python3 -c 'import json,sys; r = json.load(sys.stdin); print(r["mimeType"], len(r["data"]), "base64 characters")')"
art=$(playerctl -p deck metadata mpris:artUrl 2>/dev/null)
[ -n "$art" ] && echo "  the cover for MPRIS clients, as mpris:artUrl: ${art%%deck-artwork-*}deck-artwork-…/${art##*/} ($(wc -c < "${art#file://}") bytes)"
for app in org.deck.radio org.deck.library; do
  "$bin/deckctl" --socket "$work/apps.sock" --json ui "$app" | python3 -c 'import json,sys; i = json.load(sys.stdin)["images"]
print("  %s keeps %d image%s (%d bytes) in deckd, removed as its screen stops showing them"
      % (sys.argv[1], i["count"], "" if i["count"] == 1 else "s", i["bytes"]))' "$app"
done
# An album copied into the media folder while deckd runs: scanned again at once, only the new file read.
cp -r "$work/media/music/Dynamics" "$work/media/music/Copied in"
for _ in $(seq 100); do grep -q "library: 16 tracks" "$work/apps.log" && break; sleep 0.05; done
echo "  copied in while it plays: $(grep -o 'library: 16 tracks[^;]*' "$work/apps.log" | head -1)"
# A file on the stick that is really a live HLS playlist, named like a song: FFmpeg would wait for it
# to grow for ever; it is refused at once and the scan goes on.
printf '#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nsegment.ts\n' > "$work/media/music/Copied in/disguised.mp3"
for _ in $(seq 100); do grep -q "skipped .*disguised.mp3" "$work/apps.log" && break; sleep 0.05; done
echo "  a live playlist named like a song: $(grep -o 'disguised.mp3: cannot open .*' "$work/apps.log" | head -1 | sed 's/.*disguised.mp3: //')"
"$bin/deckctl" --socket "$work/apps.sock" launch org.deck.prompts "In three hundred metres, turn right." | sed 's/^/  /'
"$bin/deckctl" --socket "$work/apps.sock" session | sed 's/^/  /'
sleep 3
kill -TERM "$apps"; wait "$apps" || true
kill "$source" "$icecast" "$bus" 2> /dev/null; wait "$source" "$icecast" "$bus" 2> /dev/null || true
# Loudness of each source as the output carries it, by ffmpeg's EBU R128 meter on its band (the station
# is 330 Hz, the album's first track 550 Hz): on the air the station is 9 LU quieter than the album.
for source in "the station (330 Hz):330" "the album's track (550 Hz):550"; do
  loudness=$(ffmpeg -nostats -nostdin -i "$work/apps.opus" -af "bandpass=f=${source##*:}:width_type=q:w=4,ebur128" -f null - 2>&1 \
    | sed -n 's/^ *I: *//p' | tail -1)
  echo "  ${source%:*} on the output: $loudness"
done
# The album rendered to a file as fast as it decodes: the Library is told the output freewheels and
# waits for its decode thread, so ffmpeg finds silence only after the album's 36 s.
began=$(date +%s%N)
"$bin/deckd" --config "$work/apps.json" --plugins "$bin/plugins" --state none --socket "$work/album.sock" --freewheel --duration 40 \
  --play "org.deck.library:$work/media/music/Loud Band/Loud Album/01 Track 1.flac" --sink "file:$work/album.opus" 2> "$work/album.log"
echo "  the album to a file, --freewheel --duration 40: $(( ($(date +%s%N) - began) / 1000000 )) ms; silence (−50 dB, 20 ms or more) from:" \
  "$(ffmpeg -nostdin -i "$work/album.opus" -af silencedetect=n=-50dB:d=0.02 -f null - 2>&1 | grep -o 'silence_start: [0-9.]*' | sed 's/.* //' | tr '\n' ' ')s"

step "As a service: the journal's fields, the unit's hardening, man pages and completion"
if [ "$(id -u)" -eq 0 ] && [ -x /lib/systemd/systemd-journald ]; then
  # A journald of the demo's own (a namespace), so the machine's journal is not touched.
  namespace="deckdemo$$"
  /lib/systemd/systemd-journald "$namespace" > /dev/null 2>&1 &
  journald=$!
  for _ in $(seq 100); do [ -S "/run/systemd/journal.$namespace/socket" ] && break; sleep 0.05; done
  "$bin/deckd" --plugins "$bin/plugins" --freewheel --duration 1 --play org.deck.tone:sine-440 --state none \
    --sink "file:$work/journal.opus" --socket "$work/journal.sock" --log-target journal \
    --journal-socket "/run/systemd/journal.$namespace/socket"
  sleep 0.3
  echo "  journalctl DECK_PLUGIN=org.deck.tone:"
  journalctl --namespace="$namespace" --no-pager -o json DECK_PLUGIN=org.deck.tone \
    | python3 -c 'import json,sys
for line in sys.stdin:
    r = json.loads(line); print("    PRIORITY=%s DECK_SOURCE=%s  %s" % (r["PRIORITY"], r["DECK_SOURCE"], r["MESSAGE"]))'
  kill "$journald"; wait "$journald" 2> /dev/null || true
  rm -rf "/run/systemd/journal.$namespace" /var/log/journal/*."$namespace"
else
  echo "  (the journal part needs root: it starts a systemd-journald of its own)"
fi
sed -e "s|@BINDIR@|$bin|" -e "s|@SYSCONFDIR@|/etc|" dist/systemd/deckd.service.in > "$work/deckd.service"
echo "  deckd.service: $(systemd-analyze security --offline=true "$work/deckd.service" 2>&1 | tail -n 1)"
echo "  man deckd: $(man -l -P cat .build/man/deckd.8 2>/dev/null | sed -n 4p | sed 's/^ *//')"
"$bin/deckd" --plugins "$bin/plugins" --state none --sink "file:$work/complete.opus" --socket "$work/complete.sock" 2> /dev/null &
completing=$!
for _ in $(seq 100); do [ -S "$work/complete.sock" ] && break; sleep 0.05; done
echo "  bash: deckctl launch <Tab> offers: $(PATH="$bin:$PATH" bash -c "source dist/completion/deckctl.bash
  COMP_WORDS=(deckctl --socket '$work/complete.sock' launch ''); COMP_CWORD=4; _deckctl; echo \${COMPREPLY[*]}")"
kill -TERM "$completing"; wait "$completing" || true

step "Done. Next: make run (deckd on its embedded default until Ctrl-C; listen with ffplay http://127.0.0.1:8000/stream.opus), make test, make bench."
