#!/bin/sh
# Runs the test bundle as `make test` does. A test process runs as many tests at once as the machine
# has cores (Swift's cooperative pool), and most tests wait on a deckd rather than compute, so the
# bundle runs as several processes at once, each log printed whole when all are done:
#  1. four at once: deckd's suites with plugins in host processes; the serialized suites (each a
#     chain of tests one after another, the longest paths of the run); the other suites; and the
#     suites that load plugins again with them inline;
#  2. alone, one after the other: the load test (the load it makes would slow the timing checks of
#     suites beside it) and the shell completion test (it types into an interactive zsh through a
#     pseudo-terminal, which a loaded machine can stall);
#  3. the first-party apps' suites (Radio and Library start Icecast servers and ffmpeg encoders of
#     their own; beside the first shards their load slowed other suites' timing checks), two at
#     once: the Library's, and the Radio's with the two-zone test;
#  4. alone, four playback tests again with the plugins inline (a freewheel render waits at most
#     40 ms a frame for its decoder, which a machine loaded by more can miss).
# Exits non-zero when any run failed.
#
#   scripts/run-tests.sh BUNDLE.xctest
set -u
bundle=$1
logs=$(mktemp -d "${TMPDIR:-/tmp}/deck-tests-XXXXXX")
trap 'rm -rf "$logs"' EXIT
# Their subject is the host process, or it does not depend on where plugins run.
inline_skip='SimulatorTests|IsolationTests|IsolationLoadTests|CrashedPluginTests|SandboxTests|PackageTests|CompletionTests|JournalTests|RadioTests|Library[A-Za-z]*Tests'
alone='IsolationLoadTests|CompletionTests|RadioTests|Library[A-Za-z]*Tests'
# Serialized suites outside deckd's own: one process of their own.
serial='DeckCheckTests|SimulatorTests|EmbeddingAPITests|EmbeddingClientTests'

run() {
    name=$1
    shift
    "$@" > "$logs/$name.log" 2>&1
    echo $? > "$logs/$name.status"
}

started=$(date +%s)
run deckd-process "$bundle" --testing-library swift-testing --filter '^deckdTests\.' --skip "$alone|SimulatorTests" &
run suites-serial "$bundle" --testing-library swift-testing --filter "$serial" &
run suites-process "$bundle" --testing-library swift-testing --skip "^deckdTests\.(?!SimulatorTests)|IsolationLoadTests|$serial" &
run inline env DECK_TEST_ISOLATION=inline "$bundle" --testing-library swift-testing \
    --filter '^(DeckRuntimeTests|deckdTests)\.' --skip "$inline_skip" &
wait
run load "$bundle" --testing-library swift-testing --filter 'IsolationLoadTests'
run completion "$bundle" --testing-library swift-testing --filter 'CompletionTests'
run apps-library "$bundle" --testing-library swift-testing --filter 'LibraryTests|LibraryLoudnessTests' &
run apps-radio "$bundle" --testing-library swift-testing --filter 'RadioTests|LibraryZonesTests' &
wait
run apps-inline env DECK_TEST_ISOLATION=inline "$bundle" --testing-library swift-testing \
    --filter 'RadioTests/(opusAndMP3Mounts|aFreewheelRecording)|LibraryTests/(anAlbumPlaysGapless|aFreewheelRender)'

runs='deckd-process suites-serial suites-process inline load completion apps-library apps-radio apps-inline'
failed=0
for name in $runs; do
    echo "=== $name"
    cat "$logs/$name.log"
done
echo "=== summary ($(($(date +%s) - started)) s)"
for name in $runs; do
    status=$(cat "$logs/$name.status")
    printf '%-16s %s\n' "$name" "$(grep -a 'Test run with' "$logs/$name.log" | tail -n 1)"
    [ "$status" -eq 0 ] || failed=1
done
exit $failed
