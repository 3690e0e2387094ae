import DeckTestSupport
import Foundation
import Testing

/// What an integrator installs: the man pages render and cover every flag and command, and the
/// Debian packages (`make deb`, here from the test build) pass lintian, install on a copy of this
/// machine (an overlay in namespaces of its own), and there deckd runs as the unit would run it
/// and answers deckctl.
@Suite struct PackageTests {
    /// `man -l` on each page built from its scdoc source.
    private func render(_ page: String) throws -> String {
        let dir = TemporaryDirectory()
        let roff = dir.path + "/" + page
        let built = try runProgram("/bin/sh", ["-c", "scdoc < '\(Paths.repoRoot)/dist/man/\(page).scd' > '\(roff)'"])
        #expect(built.status == 0, "\(built.output)")
        let shown = try runProgram("/usr/bin/man", ["-l", "-P", "cat", roff], environment: ["MANWIDTH": "100"])
        #expect(shown.status == 0 && !shown.output.contains("troff:"), "\(shown.output)")
        return shown.output
    }

    @Test func manPagesRenderAndCoverEveryFlagAndCommand() throws {
        let deckd = try render("deckd.8")
        let help = try runProgram(Paths.binDir + "/deckd", ["--help"]).output
        let flags = Set(help.split(whereSeparator: { " [],|\n".contains($0) }).filter { $0.hasPrefix("--") }.map(String.init))
        #expect(flags.count > 20)
        for flag in flags { #expect(deckd.contains(flag), "deckd(8) does not document \(flag)") }
        let deckctl = try render("deckctl.1")
        let commands = try runProgram(Paths.binDir + "/deckctl", ["complete", "commands"]).output.split(separator: "\n")
        for command in commands where command != "complete" { #expect(deckctl.contains(command), "deckctl(1) does not document \(command)") }
        let check = try render("deck-check.1")
        let checkHelp = try runProgram(Paths.binDir + "/deck-check", ["--help"]).output
        let checkFlags = Set(checkHelp.split(whereSeparator: { " [],|\n".contains($0) }).filter { $0.hasPrefix("--") }.map(String.init))
        #expect(checkFlags.count >= 9)
        for flag in checkFlags { #expect(check.contains(flag), "deck-check(1) does not document \(flag)") }
        let plugin = try render("deck-plugin.7")
        for key in ["id", "name", "version", "abi", "library", "entitlements", "permissions"] { #expect(plugin.contains("\n       \(key)\n")) }
    }

    /// The unit's system call filter, expanded by this machine's systemd, lets deckd and its hosts
    /// make every call their sandbox is built of: a call it refused would turn that part off.
    @Test func theUnitsSystemCallFilterAllowsEveryCallOfTheSandbox() throws {
        let unit = try String(contentsOfFile: Paths.repoRoot + "/dist/systemd/deckd.service.in", encoding: .utf8)
        let named = unit.split(separator: "\n").filter { $0.hasPrefix("SystemCallFilter=") }
            .flatMap { $0.dropFirst("SystemCallFilter=".count).split(separator: " ").map(String.init) }
        #expect(named.contains("@system-service") && !named.contains { $0.hasPrefix("~") }, "an allow-list: \(named)")
        var allowed = Set(named.filter { !$0.hasPrefix("@") }), groups = named.filter { $0.hasPrefix("@") }, expanded = Set<String>()
        while let group = groups.popLast() {
            guard expanded.insert(group).inserted else { continue }
            let listed = try runProgram("/usr/bin/systemd-analyze", ["syscall-filter", group])
            #expect(listed.status == 0, "\(listed.output)")
            for line in listed.output.split(separator: "\n").dropFirst() {
                let name = line.trimmingCharacters(in: .whitespaces)
                if name.hasPrefix("@") { groups.append(name) } else if !name.isEmpty && !name.hasPrefix("#") { allowed.insert(name) }
            }
        }
        #expect(allowed.count > 300, "\(expanded)")
        let sandbox = ["landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "seccomp", "prctl", "unshare", "setns",
                       "setgroups", "setgid", "setuid", "setrlimit", "sched_setscheduler", "mlock", "memfd_create", "pidfd_open", "close_range"]
        let refused = sandbox.filter { !allowed.contains($0) }
        #expect(refused.isEmpty, "the unit refuses \(refused)")
    }

    /// The unit lets deckd make every kind of socket it uses: Unix (the control socket), IPv4 and
    /// IPv6 (the TCP port, HTTP and RTP sinks) and netlink (sock_diag, which names a local
    /// client's or RTP receiver's socket; without it each lookup reads the machine's whole table).
    @Test func theUnitsAddressFamiliesAreTheOnesDeckdUses() throws {
        let unit = try String(contentsOfFile: Paths.repoRoot + "/dist/systemd/deckd.service.in", encoding: .utf8)
        let families = unit.split(separator: "\n").filter { $0.hasPrefix("RestrictAddressFamilies=") }
            .flatMap { $0.dropFirst("RestrictAddressFamilies=".count).split(separator: " ").map(String.init) }
        #expect(Set(families) == ["AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"], "\(families)")
    }

    @Test func packagesPassLintianInstallAndRunAsTheUnitDoes() throws {
        let dir = TemporaryDirectory()
        // The same packages, only compressed faster than a release's (dpkg-deb reads these).
        let made = try runProgram(Paths.repoRoot + "/scripts/make-deb.sh", [Paths.binDir, "0.1.0", dir.path],
                                  environment: ["DPKG_DEB_COMPRESSOR_TYPE": "gzip", "DPKG_DEB_COMPRESSOR_LEVEL": "1"], timeout: 300)
        #expect(made.status == 0, "dpkg-buildpackage or lintian failed:\n\(made.output.suffix(4000))")
        let debs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".deb") }.sorted()
        #expect(debs == ["deck-swift-runtime_0.1.0_amd64.deb", "deckctl_0.1.0_amd64.deb", "deckd_0.1.0_amd64.deb",
                         "libdeck-dev_0.1.0_amd64.deb", "libdeck0_0.1.0_amd64.deb"])

        let used = try runProgram(Paths.repoRoot + "/Tests/Fixtures/installed-package.sh", [dir.path], timeout: 180)
        let out = used.output
        #expect(used.status == 0, "\(out)")
        #expect(out.contains("user: uid=") && out.contains("(deck) gid="), "the maintainer script makes the service's user")
        #expect(out.contains("unit: enabled"))
        #expect(out.contains("verify: clean"), "systemd-analyze verify:\n\(out)")
        let exposure = out.split(separator: "\n").first { $0.contains("Overall exposure level for deckd.service:") }
        let score = exposure.flatMap { line in line.split(separator: " ").drop { $0 != "deckd.service:" }.dropFirst().first.flatMap { Double($0) } }
        #expect(score.map { $0 <= 2.5 } == true, "systemd-analyze security: \(String(describing: exposure))")
        #expect(out.contains("deckd - the Deck plugin runtime for in-car audio apps"))
        #expect(out.contains("deckctl - control a running deckd"))
        #expect(out.contains("deck-plugin - the layout, manifest and rules of a Deck plugin bundle"))
        #expect(out.contains("deck-check - check Deck plugin bundles before they ship"))
        #expect(out.contains("/usr/lib/deck/plugins/Tone.deckplugin (org.deck.tone): clean"), "the installed deck-check: \(out)")
        #expect(out.contains("page from /usr/share/deck/simulator") && out.contains("<title>Deck head unit simulator</title>"),
                "the installed deckd serves the installed simulator page: \(out)")
        // deckd as the unit's User= with its ExecStart; deckctl as root finds the service's socket.
        #expect(out.contains("org.deck.tone  0.3.0  active  swift  [audio]  process "), "\(out)")
        #expect(out.contains("org.deck.tone: active"))
        #expect(out.contains("log: ") && out.contains("from /usr/lib/deck/plugins/Tone.deckplugin"))
        #expect(out.contains("deckd exit: 0"))
        #expect(out.contains("purged") && out.contains("state removed"))
    }
}
