import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckPlugins
import DeckTestSupport

/// Each way a bundle can be wrong is refused with its exact reason, and the runtime carries on.
@Suite struct PluginLoaderTests {
    let dir = TemporaryDirectory()
    let log = LogCapture()

    /// Loads `bundle` into a fresh runtime and returns why it was refused.
    func refusal(_ bundle: String, runtime: Runtime? = nil) throws -> PluginLoadError.Reason? {
        let runtime = try runtime ?? makeRuntime(log: log)
        #expect(runtime.plugins.load(bundle) == nil)
        let failure = runtime.plugins.loadFailures.last
        #expect(failure?.bundle == bundle)
        if let failure { #expect(log.contains(.error, failure.reasonText)) }
        return failure?.reason
    }

    @Test func aGoodCPluginLoadsWithItsDeclaredEntitlements() throws {
        let runtime = try makeRuntime(log: log)
        let plugin = try #require(runtime.plugins.load(Paths.helloBundle))
        #expect(plugin.id == "org.example.hello")
        #expect(plugin.entitlements == [.audio])
        #expect(plugin.state == .initialized)
        #expect(!plugin.isSwift)
        #expect(log.messages(from: "org.example.hello").contains { $0.hasPrefix("hello from C") })
        runtime.shutdown()
    }

    @Test func aGoodSwiftPluginLoadsWithItsEffectiveEntitlements() throws {
        let runtime = try makeRuntime(log: log)
        let plugin = try #require(runtime.plugins.load(Paths.toneBundle))
        #expect(plugin.id == "org.deck.tone")
        #expect(plugin.entitlements == [.audio])
        #expect(plugin.isSwift)
        runtime.shutdown()
    }

    @Test func malformedJSONIsReportedWithLineAndColumn() throws {
        let bundle = try Fixture.bundle(in: dir.path, manifestText: "{\n  \"id\": \"org.deck.test.fixture\",\n  \"name\": }\n")
        guard case .manifest(.malformedJSON(let error)) = try refusal(bundle) else {
            Issue.record("expected a JSON error"); return
        }
        #expect(error.line == 3)
        #expect(error.column == 11)
    }

    @Test(arguments: ["id", "name", "version", "abi", "library", "entitlements"])
    func eachRequiredKeyIsRequired(key: String) throws {
        let bundle = try Fixture.bundle(in: dir.path, manifest: [key: NSNull()])
        #expect(try refusal(bundle) == .manifest(.missingKey(key)))
    }

    @Test func keysOfTheWrongTypeAreNamed() throws {
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["abi": "1"])
        #expect(try refusal(bundle) == .manifest(.wrongType(key: "abi", expected: "an integer", got: "a string")))
    }

    @Test func anUnknownEntitlementIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["entitlements": ["audio", "teleport"]])
        #expect(try refusal(bundle) == .manifest(.unknownEntitlement("teleport")))
    }

    /// The reason is listed to every client (`apps.list`'s `refused`): what the bundle wrote is
    /// quoted by its start, however long the manifest's 64 KiB allow it to be.
    @Test(arguments: ["id", "name", "version", "library", "entitlements", "permissions"])
    func aLongValueIsQuotedByItsStart(key: String) throws {
        let long = String(repeating: "x", count: 60_000)
        let value: Any = ["entitlements", "permissions"].contains(key) ? [long] : long
        let bundle = try Fixture.bundle(in: dir.path, manifest: [key: value])
        let reason = try #require(try refusal(bundle))
        let text = PluginLoadError(bundle: bundle, reason: reason).reasonText
        #expect(text.utf8.count < 400 && text.contains("xxx… (60000 bytes)"), "\(text.prefix(400))")
    }

    @Test(arguments: ["radio", "org..radio", "-org.radio", "org.ra dio", "1org.radio", "org.radio-"])
    func idsMustBeReverseDNS(id: String) throws {
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["id": id])
        #expect(try refusal(bundle) == .manifest(.invalidID(id)))
    }

    @Test(arguments: ["1.0", "01.0.0", "1.0.0-", "v1.0.0", "1.0.0+build+x"])
    func versionsMustBeSemantic(version: String) throws {
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["version": version])
        #expect(try refusal(bundle) == .manifest(.invalidVersion(version)))
    }

    @Test(arguments: [("../libfixture.so", "it contains a '/'; it must name a file directly inside the bundle"),
                      ("/usr/lib/libfixture.so", "it is an absolute path"),
                      ("..", "it names a directory")])
    func theLibraryMustBeAPlainFileName(library: String, reason: String) throws {
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["library": library])
        #expect(try refusal(bundle) == .manifest(.invalidLibrary(library, reason: reason)))
    }

    @Test func aSymlinkEscapingTheBundleIsRefused() throws {
        let outside = try Fixture.bundle(in: dir.path, name: "Outside")
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["library": "liblink.so"])
        try FileManager.default.createSymbolicLink(atPath: "\(bundle)/liblink.so", withDestinationPath: "\(outside)/libfixture.so")
        let resolved = try #require(AbsolutePath.real("\(outside)/libfixture.so"))
        #expect(try refusal(bundle) == .libraryEscapesBundle(resolved: resolved))
    }

    @Test func aMissingLibraryIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["library": "libabsent.so"])
        #expect(try refusal(bundle) == .libraryUnusable("library libabsent.so not found in the bundle: No such file or directory"))
    }

    @Test func aManifestForAnotherABIMajorIsRefusedBeforeOpening() throws {
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["abi": 2])
        #expect(try refusal(bundle) == .abiMajorMismatch(declared: 2))
        #expect(log.contains(.error, "manifest declares ABI 2, but this runtime implements ABI 1"))
    }

    @Test func aLibraryBuiltForAnotherMajorIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_ENTRY_MAJOR=2"])
        #expect(try refusal(bundle) == .abiIncompatible(major: 2, minor: PluginABI.minor))
        #expect(log.contains(.error, "library is built for ABI 2.\(PluginABI.minor), but this runtime implements ABI 1.\(PluginABI.minor)"))
    }

    @Test func aLibraryBuiltForANewerMinorIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_ENTRY_MINOR=\(PluginABI.minor + 1)"])
        #expect(try refusal(bundle) == .abiIncompatible(major: 1, minor: PluginABI.minor + 1))
        #expect(log.contains(.error, "newer than this runtime's ABI"))
    }

    @Test func aLibraryWithoutTheEntrySymbolIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_NO_ENTRY"])
        #expect(try refusal(bundle) == .missingEntrySymbol)
    }

    @Test func dlopenErrorsCarryTheLinkersText() throws {
        let bundle = try Fixture.bundle(in: dir.path)
        try "not a shared object".write(toFile: "\(bundle)/libfixture.so", atomically: false, encoding: .utf8)
        guard case .dlopenFailed(let message) = try refusal(bundle) else { Issue.record("expected dlopen failure"); return }
        #expect(message.contains("libfixture.so"))
        #expect(message.contains("file too short") || message.contains("invalid ELF header"))
    }

    /// A library cross-built for another machine is refused naming both machines, where dlopen
    /// alone says the file it was given does not exist.
    @Test func aLibraryBuiltForAnotherMachineIsRefusedNamingIt() throws {
        let bundle = try Fixture.bundle(in: dir.path)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(bundle)/libfixture.so")))
        let other: UInt16 = ELFMachine.host.code == 183 ? 62 : 183
        (bytes[18], bytes[19]) = (UInt8(other & 0xFF), UInt8(other >> 8))
        try Data(bytes).write(to: URL(fileURLWithPath: "\(bundle)/libfixture.so"))
        guard case .dlopenFailed(let message) = try refusal(bundle) else { Issue.record("expected dlopen failure"); return }
        #expect(message.hasPrefix("libfixture.so is built for \(ELFMachine(code: other)); this machine is \(ELFMachine.host): build it for this one ("),
                "\(message)")
        #expect(ELFMachine(code: 183).description == "AArch64 (ELF machine 183)" && ELFMachine(code: 9999).description == "ELF machine 9999")
    }

    /// A bundle on a USB stick or a hardened /tmp, mounted noexec: dlopen says only "failed to map
    /// segment"; the refusal, and deck-check, name the mount option.
    @Test func aLibraryOnANoexecMountIsRefusedNamingIt() throws {
        try #require(geteuid() == 0, "mounting takes root, as the tests run in CI")
        let mount = dir.path + "/stick"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: false)
        #expect(try runProgram("/bin/mount", ["-t", "tmpfs", "-o", "noexec,size=16m", "tmpfs", mount]).status == 0)
        defer { _ = try? runProgram("/bin/umount", ["--lazy", mount]) }
        let bundle = try Fixture.bundle(in: mount)
        guard case .dlopenFailed(let message) = try refusal(bundle) else { Issue.record("expected dlopen failure"); return }
        #expect(message.hasPrefix("libfixture.so is on a file system mounted noexec, where no code may be mapped: install the bundle on one "
                                  + "that allows it, or mount this one without noexec ("), "\(message)")
        let checked = try runProgram(Paths.binDir + "/deck-check", ["--static", bundle])
        #expect(checked.status == 1 && checked.output.contains("error [library.elf] it is on a file system mounted noexec"), "\(checked.output)")
    }

    @Test func anEntryInitReturningFalseIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_ENTRY_INIT_FAILS"])
        #expect(try refusal(bundle) == .entryInitFailed)
    }

    @Test func aCreateReturningNullIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_CREATE_FAILS"])
        #expect(try refusal(bundle) == .createFailed)
    }

    @Test func aPluginInitFailureQuotesWhatThePluginLogged() throws {
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_PLUGIN_INIT_FAILS"])
        #expect(try refusal(bundle) == .pluginInitFailed(status: .internal, message: "cannot find my tuner"))
    }

    @Test func aDescriptorIdDifferentFromTheManifestIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_ID=\"org.deck.other\""])
        #expect(try refusal(bundle) == .pluginInvalid(
            "descriptor id \"org.deck.other\" differs from the manifest id \"org.deck.test.fixture\""))
    }

    @Test func aPluginStructMissingAFunctionIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_NO_DEACTIVATE"])
        #expect(try refusal(bundle) == .pluginInvalid("missing deactivate"))
    }

    @Test func theFirstOfTwoBundlesWithOneIdWins() throws {
        let runtime = try makeRuntime(log: log)
        let first = try Fixture.bundle(in: dir.path, name: "A")
        let second = try Fixture.bundle(in: dir.path, name: "B")
        runtime.plugins.loadFolders()
        #expect(runtime.plugins.load(first) != nil)
        #expect(try refusal(second, runtime: runtime) == .duplicateID("org.deck.test.fixture", firstBundle: first))
        #expect(runtime.plugins.map(\.bundlePath) == [first])
        runtime.shutdown()
    }

    /// A bundle folder named in bytes that are not UTF-8 cannot be opened by a path made of text:
    /// it is refused saying so, not as missing.
    @Test func aBundleFolderNamedInBytesThatAreNotUTF8IsRefusedSayingSo() throws {
        let plugins = dir.path + "/plugins"
        let bundle = try Fixture.bundle(in: plugins, name: "Cafe")
        let latin1 = Array((plugins + "/Caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9)] + Array(".deckplugin".utf8CString)
        #expect(rename(bundle, latin1) == 0)
        var configuration = RuntimeConfiguration()
        configuration.policy = .grantAll
        configuration.pluginDirectories = [plugins]
        let runtime = try Runtime(configuration: configuration, logger: log.logger)
        runtime.plugins.loadFolders()
        let failure = try #require(runtime.plugins.loadFailures.last)
        #expect(failure.bundle == plugins + "/Caf\u{FFFD}.deckplugin")
        #expect(failure.reason == .notADirectory("its name is not UTF-8 text (\u{FFFD} marks the bytes), so it cannot be opened by it; rename the folder"))
        runtime.shutdown()
    }

    @Test func entitlementsThePolicyDoesNotGrantAreDroppedWithAWarning() throws {
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["entitlements": ["audio", "maps"]])
        let policy = EntitlementPolicy(defaultGrants: [.audio], pluginGrants: [:])
        let runtime = try makeRuntime(policy: policy, log: log)
        let plugin = try #require(runtime.plugins.load(bundle))
        #expect(plugin.entitlements == [.audio])
        #expect(log.contains(.warning, "org.deck.test.fixture: entitlements not granted by policy, loading without them: maps"))
        runtime.shutdown()
    }

    @Test func aSwiftPluginThatRefusesWithoutItsEntitlementReportsTheSDKError() throws {
        let policy = EntitlementPolicy(defaultGrants: [], pluginGrants: [:])
        let runtime = try makeRuntime(policy: policy, log: log)
        #expect(try refusal(Paths.toneBundle, runtime: runtime)
            == .pluginInitFailed(status: .notEntitled, message: "init failed: Tone needs the audio entitlement"))
    }

    @Test func aBundleWritableByOthersIsRefusedUnlessInsecureIsAllowed() throws {
        let bundle = try Fixture.bundle(in: dir.path)
        chmod("\(bundle)/libfixture.so", 0o777)
        guard case .insecure(_, let problem) = try refusal(bundle) else { Issue.record("expected insecure"); return }
        #expect(problem == "it is writable by group or others (mode 777)")
        let insecure = try makeRuntime(insecure: true, log: log)
        #expect(insecure.plugins.load(bundle) != nil)
        insecure.shutdown()
    }

    /// Whoever can write any of these can change what the runtime loads or grants.
    @Test(arguments: [("", 0o777), ("/manifest.json", 0o666), ("/libfixture.so", 0o775), ("/..", 0o777)])
    func everyPathThatDecidesWhatLoadsMustBeOursAlone(relative: String, mode: Int) throws {
        let folder = dir.path + "/plugins"
        let bundle = try Fixture.bundle(in: folder)
        let real = URL(fileURLWithPath: bundle + relative).standardized.resolvingSymlinksInPath().path
        chmod(real, mode_t(mode))
        defer { chmod(real, 0o755) }
        guard case .insecure(let path, let problem) = try refusal(bundle) else { Issue.record("expected insecure"); return }
        #expect(URL(fileURLWithPath: path).resolvingSymlinksInPath().path == real)
        #expect(problem == "it is writable by group or others (mode \(String(mode, radix: 8)))")
    }

    @Test func aSharedFolderWithTheStickyBitAboveTheBundleIsAccepted() throws {
        let folder = dir.path + "/shared"
        let bundle = try Fixture.bundle(in: folder)
        chmod(folder, 0o1777)  // as /tmp: others may add files but not rename ours
        let runtime = try makeRuntime(log: log)
        #expect(runtime.plugins.load(bundle) != nil)
        runtime.shutdown()
    }

    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root"), arguments: ["", "/.."])
    func aBundleOrPluginFolderOwnedByAnotherUserIsRefused(relative: String) throws {
        let bundle = try Fixture.bundle(in: dir.path + "/plugins")
        let real = URL(fileURLWithPath: bundle + relative).standardized.path
        #expect(chown(real, 65534, 65534) == 0)
        guard case .insecure(let path, let problem) = try refusal(bundle) else { Issue.record("expected insecure"); return }
        #expect(URL(fileURLWithPath: path).standardized.path == real)
        #expect(problem == "it is owned by uid 65534, not by the runtime's user (uid 0) or root")
    }

    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root"))
    func aLibraryOwnedByAnotherUserIsRefused() throws {
        let bundle = try Fixture.bundle(in: dir.path)
        #expect(chown("\(bundle)/libfixture.so", 65534, 65534) == 0)
        guard case .insecure(_, let problem) = try refusal(bundle) else { Issue.record("expected insecure"); return }
        #expect(problem == "it is owned by uid 65534, not by the runtime's user (uid 0) or root")
    }

    @Test func oneBadBundleDoesNotStopTheOthersInItsDirectory() throws {
        try Fixture.bundle(in: dir.path, name: "A-broken", manifest: ["entitlements": ["teleport"]])
        try Fixture.bundle(in: dir.path, name: "B-good", defines: ["FIXTURE_ID=\"org.deck.test.good\""],
                           manifest: ["id": "org.deck.test.good"])
        var configuration = RuntimeConfiguration.forTests()
        configuration.pluginDirectories = [dir.path, dir.path + "/absent"]
        let runtime = try Runtime(configuration: configuration, logger: log.logger)
        runtime.plugins.loadFolders()
        #expect(runtime.plugins.map(\.id) == ["org.deck.test.good"])
        // A missing folder is reported, but it is not a refused bundle.
        #expect(runtime.plugins.loadFailures.map(\.reason) == [.manifest(.unknownEntitlement("teleport"))])
        #expect(log.contains(.warning, "\(dir.path)/absent: cannot read plugin directory: No such file or directory"))
        runtime.shutdown()
    }
}
