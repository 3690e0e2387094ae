import DeckBase
import Glibc

/// `deck-check BUNDLE…`: checks plugin bundles before they ship, statically (files, manifest, the
/// library as ELF) and then by running each under a test runtime of its own.
let usage = """
    usage: deck-check [--json] [--only RULE,…] [--skip RULE,…] [--static] [--item ITEM]
                      [--seconds N] [--media DIR]… [--deckd PATH] BUNDLE…
           deck-check --list-rules [--json]

    Checks Deck plugin bundles: the files, the manifest and the library without running it, then
    the plugin loaded by a deckd of its own (host processes, a private socket and file sink) and
    driven as a head unit would: launch, playback, commands, a transient loss, a duck, a loss,
    screens at four display profiles parked and driving, selections, its content tree, unload and
    load again; meanwhile a second deckd runs it inline through three lifecycles (leftovers,
    render timing). Each finding names its rule, severity and the guide's section.

      --json          one JSON document (schema version 1) instead of text
      --only, --skip  rules by id, comma-separated (--list-rules shows them)
      --static        the static checks only
      --item ITEM     the item to launch it with (default: its own default)
      --seconds N     seconds of its audio to judge (default 3, 1…60)
      --media DIR     a media folder to give it (repeatable; for apps holding the media permission)
      --deckd PATH    the runtime to run it under (default: the deckd beside deck-check)

    Exit status: 0 no errors, 1 errors found, 2 usage error, 3 a check could not run or
    the report could not be written.
    """

struct Options {
    var bundles: [String] = []
    var json = false
    var only: Set<String>?
    var skip: Set<String> = []
    var staticOnly = false
    var listRules = false
    var item: String?
    var seconds = 3.0
    var deckd: String?
    var media: [String] = []

    init(_ arguments: [String]) throws(CheckError) {
        var rest = arguments[...]
        func value(_ flag: String) throws(CheckError) -> String {
            guard let next = rest.popFirst() else { throw .usage("\(flag) needs a value") }
            return next
        }
        /// A value that may not be empty (a path, an item).
        func text(_ flag: String) throws(CheckError) -> String {
            let given = try value(flag)
            guard !given.isEmpty else { throw .usage("\(flag) needs a value, not an empty one") }
            return given
        }
        func rules(_ flag: String) throws(CheckError) -> Set<String> {
            let ids = Set(try value(flag).split(separator: ",").map(String.init))
            guard !ids.isEmpty else { throw .usage("\(flag) needs rule ids, e.g. \(flag) render.silent (see --list-rules)") }
            if let unknown = ids.first(where: { CheckRule.named($0) == nil }) { throw .usage("\(flag): no rule \"\(unknown)\" (see --list-rules)") }
            return ids
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = true
            case "--static": staticOnly = true
            case "--list-rules": listRules = true
            case "--only": only = try rules(argument)
            case "--skip": skip = try rules(argument)
            case "--item": item = try text(argument)
            case "--deckd": deckd = try text(argument)
            case "--media":
                let folder = try value(argument)
                guard !folder.isEmpty else { throw .usage("a media folder's path is empty") }
                var info = stat()
                let missing = stat(folder, &info) == 0 ? "" : " (\(String(cString: strerror(errno))))"
                guard missing.isEmpty, info.st_mode & S_IFMT == S_IFDIR else { throw .usage("--media \(folder) is not a folder\(missing)") }
                media.append(AbsolutePath.resolve(folder))  // the test runtime's config reads paths from its own folder
            case "--seconds":
                let text = try value(argument)
                guard let number = Double(plainDecimal: text), (1...60).contains(number) else { throw .usage("--seconds must be 1 to 60, got \(text)") }
                seconds = number
            case "--help", "-h":
                print(usage)
                finish(0)
            default:
                guard !argument.hasPrefix("-") else { throw .usage("unknown option \(argument)") }
                guard !argument.isEmpty else { throw .usage("a bundle's path is empty") }
                bundles.append(argument)
            }
        }
        if listRules, let bundle = bundles.first { throw .usage("--list-rules lists the rules and checks no bundle, not \(bundle)") }
        if bundles.isEmpty && !listRules { throw .usage("name at least one bundle") }
        // Nothing checked must not read as clean.
        if !CheckRule.all.contains(where: { wants($0) && (!staticOnly || $0.stage == .static) }) {
            throw .usage(staticOnly ? "--only and --skip leave no static rule to check (--static runs only those)" : "--only and --skip leave no rule to check")
        }
    }

    func wants(_ rule: CheckRule) -> Bool { (only?.contains(rule.id) ?? true) && !skip.contains(rule.id) }
}

/// The deckd next to this executable.
func besideSelf(_ name: String) -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let path = count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    return String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) + "/" + name
}

func check(_ bundle: String, options: Options) throws(CheckError) -> (id: String?, findings: [Finding]) {
    var inspector = BundleInspector(bundle: bundle)
    inspector.run()
    var findings = inspector.findings
    let blocking: Set<String> = ["manifest.valid", "manifest.abi", "bundle.library", "library.elf", "library.entry", "library.needed"]
    if !options.staticOnly, let manifest = inspector.manifest, !findings.contains(where: { blocking.contains($0.rule.id) }),
       CheckRule.all.contains(where: { $0.stage == .dynamic && options.wants($0) }) {
        var run = DynamicRun(bundle: AbsolutePath.resolve(inspector.bundle), id: manifest.id, item: options.item, deckd: options.deckd ?? besideSelf("deckd"),
                             seconds: options.seconds, media: options.media,
                             wants: { id in CheckRule.named(id).map(options.wants) ?? false })
        try run.run()
        findings += run.findings
    }
    return (inspector.manifest?.id, findings.filter { options.wants($0.rule) })
}

func render(_ results: [(bundle: String, id: String?, findings: [Finding])], json: Bool) -> String {
    let all = results.flatMap(\.findings)
    let errors = all.filter { $0.rule.severity == .error }.count, warnings = all.filter { $0.rule.severity == .warning }.count
    if json {
        let bundles: [JSONValue] = results.map { result in
            ["bundle": .string(result.bundle), "id": result.id.map(JSONValue.string) ?? .null,
             "findings": .array(result.findings.map { finding in
                 ["rule": .string(finding.rule.id), "severity": .string(finding.rule.severity.rawValue), "stage": .string(finding.rule.stage.rawValue),
                  "reason": .string(finding.reason), "doc": .string("docs/" + finding.rule.doc), "where": .string(finding.location)]
             })]
        }
        let document: JSONValue = ["schema": 1, "bundles": .array(bundles), "errors": .int(Int64(errors)), "warnings": .int(Int64(warnings))]
        return document.encoded()
    }
    var lines: [String] = []
    for result in results {
        let problems = result.findings.filter { $0.rule.severity > .info }.count
        lines.append("\(result.bundle)\(result.id.map { " (\($0))" } ?? ""): \(problems == 0 ? "clean" : "\(problems) problem(s)")")
        for finding in result.findings.sorted(by: { $0.rule.severity > $1.rule.severity }) {
            lines.append("  \(finding.rule.severity.rawValue) [\(finding.rule.id)] \(finding.reason)")
            lines.append("      at \(finding.location) — docs/\(finding.rule.doc)")
        }
    }
    lines.append("\(errors) error(s), \(warnings) warning(s)")
    // A finding quotes the bundle's own text (its id, name, log lines): it cannot drive the terminal.
    return lines.map { PrintableText.escaping($0, maxBytes: .max) }.joined(separator: "\n")
}

StandardDescriptors.openClosedOnes()
do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    if options.listRules {
        if options.json {
            let rules: [JSONValue] = CheckRule.all.map {
                ["id": .string($0.id), "severity": .string($0.severity.rawValue), "stage": .string($0.stage.rawValue),
                 "summary": .string($0.summary), "doc": .string("docs/" + $0.doc)]
            }
            print(JSONValue.object(["schema": 1, "rules": .array(rules)]).encoded())
        } else {
            for rule in CheckRule.all { print("\(rule.id.padding(22)) \(rule.severity.rawValue.padding(8)) \(rule.stage.rawValue.padding(8)) \(rule.summary)") }
        }
        finish(0)
    }
    var results: [(bundle: String, id: String?, findings: [Finding])] = []
    for bundle in options.bundles {
        let (id, findings) = try check(bundle, options: options)
        results.append((bundle, id, findings))
    }
    print(render(results, json: options.json))
    finish(results.contains { $0.findings.contains { $0.rule.severity == .error } } ? 1 : 0)
} catch .usage(let message) {
    printError("deck-check: \(message)\n\(usage)\n")
    exit(2)
} catch {
    printError("deck-check: \(error)\n")
    exit(3)
}

/// Exits with `status` once the output is written; with 3 when it cannot be (a full disk): a
/// report lost is a check that did not run, never a clean one.
func finish(_ status: Int32) -> Never {
    if let reason = StandardDescriptors.flushOutput() {
        printError("deck-check: cannot write the report: \(reason)\n")
        exit(3)
    }
    exit(status)
}

func printError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
