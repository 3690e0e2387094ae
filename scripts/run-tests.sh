#!/bin/sh
# Runs the test bundle as `make test` does: three processes at once (deckd's suites with plugins
# in host processes, the other suites likewise, and the suites that load plugins again with them
# inline), each log printed whole when all are done; then, one after the other and alone, the
# load test (the load it makes would slow the timing checks of suites beside it) and the shell
# completion test (it types into an interactive zsh through a pseudo-terminal, which a loaded
# machine can stall), and the first-party apps' suites (Radio and Library start Icecast servers and
# ffmpeg encoders of their own; beside the shards their load slowed other suites' timing checks),
# with their plugins in host processes, then two of their playback tests again with the plugins
# inline. Exits non-zero when any run failed.
#
#   scripts/run-tests.sh BUNDLE.xctest
set -u
bundle=$1
logs=$(mktemp -d "${TMPDIR:-/tmp}/deck-tests-XXXXXX")
trap 'rm -rf "$logs"' EXIT
# Their subject is the host process, or it does not depend on where plugins run.
inline_skip='SimulatorTests|IsolationTests|IsolationLoadTests|CrashedPluginTests|SandboxTests|PackageTests|CompletionTests|JournalTests|RadioTests|LibraryTests'
alone='IsolationLoadTests|CompletionTests|RadioTests|LibraryTests'

run() {
    name=$1
    shift
    "$@" > "$logs/$name.log" 2>&1
    echo $? > "$logs/$name.status"
}

started=$(date +%s)
# The simulator's suite (headless Chromium) runs with the unit suites: it evens out the two shards.
run deckd-process "$bundle" --testing-library swift-testing --filter '^deckdTests\.' --skip "$alone|SimulatorTests" &
run suites-process "$bundle" --testing-library swift-testing --skip '^deckdTests\.(?!SimulatorTests)|IsolationLoadTests' &
run inline env DECK_TEST_ISOLATION=inline "$bundle" --testing-library swift-testing \
    --filter '^(DeckRuntimeTests|deckdTests)\.' --skip "$inline_skip" &
wait
run load "$bundle" --testing-library swift-testing --filter 'IsolationLoadTests'
run completion "$bundle" --testing-library swift-testing --filter 'CompletionTests'
run apps "$bundle" --testing-library swift-testing --filter 'RadioTests|LibraryTests'
run apps-inline env DECK_TEST_ISOLATION=inline "$bundle" --testing-library swift-testing \
    --filter 'RadioTests/(opusAndMP3Mounts|aFreewheelRecording)|LibraryTests/(anAlbumPlaysGapless|aFreewheelRender)'

failed=0
for name in deckd-process suites-process inline load completion apps apps-inline; do
    echo "=== $name"
    cat "$logs/$name.log"
done
echo "=== summary ($(($(date +%s) - started)) s)"
for name in deckd-process suites-process inline load completion apps apps-inline; do
    status=$(cat "$logs/$name.status")
    printf '%-16s %s\n' "$name" "$(grep -a 'Test run with' "$logs/$name.log" | tail -n 1)"
    [ "$status" -eq 0 ] || failed=1
done
exit $failed
