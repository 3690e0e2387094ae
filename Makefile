# Deck — every entry point installs what is missing first (make deps).
#   make demo   build and show the runtime working end to end
#   make run    run deckd on its embedded default until Ctrl-C
#   make test   build everything and run every test
#   make bench  run deck-bench and print the figures recorded in BENCHMARKS.md
#   make request-cost   instructions deckd runs per control request (callgrind; the same on every run)
#   make fuzz   run each libFuzzer target for FUZZ_SECONDS (default 60) with AddressSanitizer
#   make chaos  deckd and its first-party apps under random calls, hang-ups, reloads and killed hosts
#               for CHAOS_SECONDS (default 600; CHAOS_SEED replays a run)
#   make tsan   every suite with plugins in host processes, then the runtime's inline, built with ThreadSanitizer:
#               each data race once
#   make asan   the same with AddressSanitizer: each use after free, overflow or bad access once
#   make install PREFIX=/usr/local [DESTDIR=…]   libdeck.so, headers, pkg-config files, deckd, deckctl, deck-check, plugins, the simulator's page,
#                                                 man pages, completions, the systemd unit and a config
#   make deb    Debian packages (deckd, deckctl, libdeck0, libdeck-dev, deck-swift-runtime) in .build/deb, checked by lintian

SWIFT        ?= swift
SWIFT_FLAGS  := -Xswiftc -warnings-as-errors
APT_PACKAGES := gcc g++ make pkg-config libuv1-dev libjansson-dev libopus-dev libogg-dev libsystemd-dev procps opus-tools ffmpeg \
                dbus-daemon dbus-bin playerctl systemd man-db scdoc zsh fish \
                dpkg-dev debhelper fakeroot lintian patchelf libespeak-ng-dev espeak-ng-data \
                libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev libebur128-dev icecast2 curl \
                chromium chromium-driver python3-selenium valgrind iproute2
PIP_PACKAGES := openrpc jsonschema

RELEASE_BIN  = $(shell $(SWIFT) build -c release --show-bin-path)
DEBUG_BIN    = $(shell $(SWIFT) build -c debug --show-bin-path)

PREFIX       ?= /usr/local
DESTDIR      ?=
LIBDIR       ?= $(PREFIX)/lib
SYSCONFDIR   ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR      ?= $(PREFIX)/lib/systemd/system
MANDIR       ?= $(PREFIX)/share/man
ZSHCOMPDIR   ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
VERSION      := 0.1.0

FUZZ_SECONDS ?= 60
CHAOS_SECONDS ?= 600
CHAOS_SEED   ?=
FUZZ_TARGETS := rpc rpc-schema manifest config state template mpris host-wire http-head json media cover
FUZZ_BUILD   := .build/fuzz
# Suites whose subject is the host process (its sandbox, its crashes): they cannot run inline.
SANITIZE_INLINE_SKIP := SimulatorTests|IsolationTests|IsolationLoadTests|CrashedPluginTests|SandboxTests|CompletionTests|JournalTests
# PackageTests runs the packaged deckd as the unit does, without the sanitizer's options.
SANITIZE_SKIP := PackageTests

.PHONY: all deps build build-debug bundles-release bundles-debug plugin-c plugin-swift demo run test bench request-cost fuzz chaos tsan asan clean install install-files install-sdk man deb

all: build

# Installs the Debian packages the build and tests need; does nothing when they are there.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  if [ "$$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@python3 -c "import openrpc, jsonschema" 2>/dev/null || { echo "make deps: installing $(PIP_PACKAGES) (pip)"; \
	  python3 -m pip install --quiet $(PIP_PACKAGES); }

build: deps
	$(SWIFT) build -c release $(SWIFT_FLAGS)
	@$(MAKE) --no-print-directory bundles-release

build-debug: deps
	$(SWIFT) build -c debug $(SWIFT_FLAGS)
	@$(MAKE) --no-print-directory bundles-debug

# First-party plugin bundles next to deckd: <bin>/plugins/NAME.deckplugin/{manifest.json,libNAME.so}.
bundles-release:
	@scripts/make-bundles.sh "$(RELEASE_BIN)"
bundles-debug:
	@scripts/make-bundles.sh "$(DEBUG_BIN)"

# Installs a release build; `install-files BIN=DIR` installs a build already made (the tests use it).
install: build
	@$(MAKE) --no-print-directory install-files BIN="$(RELEASE_BIN)"

# deckd lives in lib/deck beside the first-party bundles it loads (lib/deck/plugins), linked from bin.
install-files: man install-sdk
	@test -n "$(BIN)" -a -f "$(BIN)/libdeck.so" || { echo "install-files: BIN must name a build folder with libdeck.so"; exit 2; }
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(LIBDIR)/pkgconfig" "$(DESTDIR)$(PREFIX)/lib/deck/plugins" \
	  "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man7" "$(DESTDIR)$(MANDIR)/man8" \
	  "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(ZSHCOMPDIR)" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(PREFIX)/lib/sysusers.d" \
	  "$(DESTDIR)$(SYSCONFDIR)/deck" "$(DESTDIR)$(PREFIX)/share/deck/simulator"
	install -m 644 "$(BIN)/libdeck.so" "$(DESTDIR)$(LIBDIR)/libdeck.so.$(VERSION)"
	ln -sf "libdeck.so.$(VERSION)" "$(DESTDIR)$(LIBDIR)/libdeck.so.0"
	ln -sf libdeck.so.0 "$(DESTDIR)$(LIBDIR)/libdeck.so"
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' sdk/deck.pc.in > "$(DESTDIR)$(LIBDIR)/pkgconfig/deck.pc"
	install -m 755 "$(BIN)/deckd" "$(DESTDIR)$(PREFIX)/lib/deck/deckd"
	install -m 755 "$(BIN)/deck-plugin-host" "$(DESTDIR)$(PREFIX)/lib/deck/deck-plugin-host"
	ln -sf ../lib/deck/deckd "$(DESTDIR)$(PREFIX)/bin/deckd"
	install -m 755 "$(BIN)/deckctl" "$(DESTDIR)$(PREFIX)/bin/deckctl"
	install -m 755 "$(BIN)/deck-check" "$(DESTDIR)$(PREFIX)/lib/deck/deck-check"
	ln -sf ../lib/deck/deck-check "$(DESTDIR)$(PREFIX)/bin/deck-check"
	cp -R "$(BIN)/plugins/." "$(DESTDIR)$(PREFIX)/lib/deck/plugins/"
	install -m 644 dist/simulator/index.html dist/simulator/simulator.css dist/simulator/simulator.js "$(DESTDIR)$(PREFIX)/share/deck/simulator/"
	chmod -R go-w "$(DESTDIR)$(PREFIX)/lib/deck/plugins"
	install -m 644 .build/man/deckctl.1 .build/man/deck-check.1 "$(DESTDIR)$(MANDIR)/man1/"
	install -m 644 .build/man/deck-plugin.7 "$(DESTDIR)$(MANDIR)/man7/"
	install -m 644 .build/man/deckd.8 "$(DESTDIR)$(MANDIR)/man8/"
	install -m 644 dist/completion/deckctl.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/deckctl"
	install -m 644 dist/completion/_deckctl "$(DESTDIR)$(ZSHCOMPDIR)/_deckctl"
	install -m 644 dist/completion/deckctl.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/deckctl.fish"
	sed -e 's|@BINDIR@|$(PREFIX)/bin|' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|' dist/systemd/deckd.service.in > "$(DESTDIR)$(UNITDIR)/deckd.service"
	chmod 644 "$(DESTDIR)$(UNITDIR)/deckd.service"
	install -m 644 dist/systemd/deck.sysusers "$(DESTDIR)$(PREFIX)/lib/sysusers.d/deck.conf"
	test -e "$(DESTDIR)$(SYSCONFDIR)/deck/deck.json" || \
	  sed -e 's|@LIBDIR@|$(PREFIX)/lib|' dist/deck.json.in > "$(DESTDIR)$(SYSCONFDIR)/deck/deck.json"

# What plugin authors build against: the C headers, deck-plugin.pc (plain cc + pkg-config) and
# the DeckSDK Swift package (<prefix>/share/deck/swift-sdk, for SwiftPM); no build needed.
install-sdk:
	install -d "$(DESTDIR)$(PREFIX)/include/deck/ext" "$(DESTDIR)$(LIBDIR)/pkgconfig" \
	  "$(DESTDIR)$(PREFIX)/share/deck/swift-sdk/Sources/CDeckPlugin" "$(DESTDIR)$(PREFIX)/share/deck/swift-sdk/Sources/DeckABI" \
	  "$(DESTDIR)$(PREFIX)/share/deck/swift-sdk/Sources/DeckSDK"
	install -m 644 sdk/include/deck/*.h "$(DESTDIR)$(PREFIX)/include/deck/"
	install -m 644 sdk/include/deck/ext/*.h "$(DESTDIR)$(PREFIX)/include/deck/ext/"
	sed -e 's|^prefix=.*|prefix=$(PREFIX)|' sdk/deck-plugin.pc > "$(DESTDIR)$(LIBDIR)/pkgconfig/deck-plugin.pc"
	install -m 644 dist/swift-sdk/Package.swift "$(DESTDIR)$(PREFIX)/share/deck/swift-sdk/"
	install -m 644 dist/swift-sdk/Sources/CDeckPlugin/* "$(DESTDIR)$(PREFIX)/share/deck/swift-sdk/Sources/CDeckPlugin/"
	install -m 644 Sources/DeckABI/*.swift "$(DESTDIR)$(PREFIX)/share/deck/swift-sdk/Sources/DeckABI/"
	install -m 644 Sources/DeckSDK/*.swift "$(DESTDIR)$(PREFIX)/share/deck/swift-sdk/Sources/DeckSDK/"

# Man pages from their scdoc sources (dist/man) into .build/man.
man: deps
	@mkdir -p .build/man
	@for page in dist/man/*.scd; do scdoc < "$$page" > ".build/man/$$(basename "$$page" .scd)" || exit 1; done

# Debian packages from a release build: dpkg-buildpackage over dist/debian, then lintian.
deb: build man
	@scripts/make-deb.sh "$(RELEASE_BIN)" "$(VERSION)"

plugin-c: deps
	@$(MAKE) --no-print-directory -C examples/plugin-c
	@$(MAKE) --no-print-directory -C examples/ui-c

# The Swift example built as a third party would: SwiftPM against an SDK installed into .build/sdk.
# Both start afresh (a few seconds): install-sdk leaves files the SDK no longer has, and SwiftPM
# keeps its build plan when a path dependency gains a file.
plugin-swift: deps
	@rm -rf .build/sdk examples/plugin-swift/build/swiftpm
	@$(MAKE) --no-print-directory install-sdk PREFIX="$(CURDIR)/.build/sdk" DESTDIR= LIBDIR="$(CURDIR)/.build/sdk/lib" > /dev/null
	@$(MAKE) --no-print-directory -C examples/plugin-swift DECK_PREFIX="$(CURDIR)/.build/sdk"

demo: build plugin-c man
	@scripts/demo.sh "$(RELEASE_BIN)"

run: build
	"$(RELEASE_BIN)/deckd"

# Every suite runs with plugins in host processes (the default); the suites that load plugins
# (DeckRuntimeTests, deckdTests) run again with them inline in the runtime. The per-layer targets
# (DeckBaseTests, DeckSessionTests, …) load no plugins. scripts/run-tests.sh runs these in three
# processes at once (most tests wait on subprocesses and sockets), then the load test and the
# shell completion test, each alone.
test: build-debug plugin-c plugin-swift
	$(SWIFT) build -c debug --build-tests $(SWIFT_FLAGS)
	scripts/run-tests.sh "$(DEBUG_BIN)/DeckPackageTests.xctest"

bench: build plugin-c
	"$(RELEASE_BIN)/deck-bench" --bin "$(RELEASE_BIN)" --plugin-c examples/plugin-c/build/Hello.deckplugin

request-cost: build
	@scripts/request-cost.sh "$(RELEASE_BIN)"

# libFuzzer over what outsiders send or write (JSON-RPC, manifests and policies, config, HTTP heads),
# instrumented with AddressSanitizer. New inputs collect in $(FUZZ_BUILD)/corpus; crashes in
# $(FUZZ_BUILD)/artifacts (copy one into Tests/Fuzz/corpus/TARGET to keep it as a regression test).
fuzz: deps
	$(SWIFT) build --build-path $(FUZZ_BUILD) -c debug --product deck-fuzz -Xswiftc -sanitize=fuzzer,address \
	  -Xswiftc -DDECK_FUZZ -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
	@mkdir -p $(FUZZ_BUILD)/artifacts
	@for target in $(FUZZ_TARGETS); do \
	  echo "== fuzzing $$target for $(FUZZ_SECONDS) s"; mkdir -p $(FUZZ_BUILD)/corpus/$$target; \
	  DECK_FUZZ_TARGET=$$target $(FUZZ_BUILD)/debug/deck-fuzz $(FUZZ_BUILD)/corpus/$$target Tests/Fuzz/corpus/$$target \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=$$([ $$target = media ] && echo 16384 || echo 4096) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$target- || exit 1; \
	done

# ChaosTests for longer than `make test` gives it (15 s): the seed it prints in a failure replays it.
chaos: build-debug plugin-c plugin-swift
	$(SWIFT) build -c debug --build-tests $(SWIFT_FLAGS)
	DECK_CHAOS_SECONDS=$(CHAOS_SECONDS) $(if $(CHAOS_SEED),DECK_CHAOS_SEED=$(CHAOS_SEED)) \
	  "$(DEBUG_BIN)/DeckPackageTests.xctest" --testing-library swift-testing --filter ChaosTests

# The test bundle, deckd, its host process and the first-party plugins built with a sanitizer in
# $(1) (-sanitize=$(2), swiftc flags $(5)); every suite run with $(3)="$(4)" (deckd started by the
# tests included) with plugins in host processes, then again with plugins inline the runtime's
# suites that can run so; each report printed once. Tests are run for the code and the threads they
# drive, not judged: a sanitizer slows them past their time limits. Executables export every symbol
# so the plugins they load find the sanitizer's Swift hooks. Host processes report there too (their
# environment keeps the sanitizer's options, their sandbox lets them write the reports folder, which
# is open to every uid as theirs are their own). A segfault is the tests' to see, not the
# sanitizer's (handle_segv=0): those that crash a plugin or signal its host do so on purpose; nor
# Swift's backtracer's, whose reads of the crashed stack AddressSanitizer would report. The plain C
# programs that load libdeck (examples/embed-c and the embedding fixtures) get the sanitizer's
# runtime $(6) preloaded through DECK_SANITIZER_PRELOAD, so libdeck's C API is covered too.
define run-sanitized
	$(SWIFT) build --build-path $(1) --build-tests --sanitize=$(2) $(SWIFT_FLAGS) $(5) -Xlinker --export-dynamic
	@scripts/make-bundles.sh $(1)/debug
	@rm -rf $(1)/reports && mkdir -p -m 1777 $(1)/reports
	-SWIFT_BACKTRACE=enable=no DECK_SANITIZER_PRELOAD="$(6)" $(3)="$(4) log_path=$(abspath $(1))/reports/report" \
	  $(1)/debug/DeckPackageTests.xctest --testing-library swift-testing --skip '$(SANITIZE_SKIP)' > $(1)/tests-process.log 2>&1
	@grep -a 'Test run with' $(1)/tests-process.log | tail -n 1
	-DECK_TEST_ISOLATION=inline SWIFT_BACKTRACE=enable=no DECK_SANITIZER_PRELOAD="$(6)" $(3)="$(4) log_path=$(abspath $(1))/reports/report" \
	  $(1)/debug/DeckPackageTests.xctest --testing-library swift-testing \
	  --filter '^(DeckRuntimeTests|deckdTests)\.' --skip '$(SANITIZE_INLINE_SKIP)|$(SANITIZE_SKIP)' > $(1)/tests-inline.log 2>&1
	@grep -a 'Test run with' $(1)/tests-inline.log | tail -n 1
	scripts/sanitizer-reports.py $(1)/reports/*
endef

# The toolchain's lib folder (expanded when a recipe runs, after `deps` has installed Swift), whose
# clang/*/lib/linux holds the sanitizers' shared runtimes; ThreadSanitizer's needs its libdispatch.
SWIFT_LIB = $(shell dirname "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")")/lib
SANITIZER_RUNTIME = $(firstword $(wildcard $(SWIFT_LIB)/clang/*/lib/linux/libclang_rt.$(1)-x86_64.so))

tsan: deps plugin-c plugin-swift
	$(call run-sanitized,.build/tsan,thread,TSAN_OPTIONS,halt_on_error=0 handle_segv=0 report_thread_leaks=0,,$(call SANITIZER_RUNTIME,tsan) $(SWIFT_LIB)/swift/linux/libdispatch.so)

asan: deps plugin-c plugin-swift
	$(call run-sanitized,.build/asan,address,ASAN_OPTIONS,halt_on_error=0 handle_segv=0 detect_leaks=0 suppressions=$(CURDIR)/scripts/asan-suppressions.txt,-Xswiftc -sanitize-recover=address,$(call SANITIZER_RUNTIME,asan))

clean:
	$(SWIFT) package clean
	@$(MAKE) --no-print-directory -C examples/plugin-c clean
	@$(MAKE) --no-print-directory -C examples/ui-c clean
	@$(MAKE) --no-print-directory -C examples/plugin-swift clean
