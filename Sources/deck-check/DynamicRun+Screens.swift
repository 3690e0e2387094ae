import DeckBase
import Glibc

/// Its screens as a head unit drives them: at each display profile parked and driving, every
/// selection it is handed completed, every level of its content tree it is asked for loaded.
extension DynamicRun {
    /// The display profiles head units have (CarPlay's small and standard, a portrait and a wide screen).
    static let profiles = [(748, 456), (800, 480), (768, 1024), (1920, 720)]

    func screen(_ runtime: RuntimeConnection) -> JSONValue? { try? runtime.call("ui.get", ["app": .string(id)]) }

    /// What the limits hid at each profile, parked and driving (profiles that hid the same, together).
    mutating func judgeScreens(_ runtime: RuntimeConnection) {
        var hiddenAt: [String: [String]] = [:], order: [String] = []
        for (width, height) in DynamicRun.profiles {
            for driving in [false, true] {
                _ = try? runtime.call("display.set", ["width": .int(Int64(width)), "height": .int(Int64(height)), "driving": .bool(driving)])
                usleep(100_000)
                guard let screen = screen(runtime) else { continue }
                var hidden: [String] = []
                for template in screen["stack"]?.arrayValue ?? [] {
                    if let dropped = template["dropped"]?.intValue, dropped > 0 {
                        hidden.append("\(template["type"]?.stringValue ?? "template") \"\(template["title"]?.stringValue ?? "")\": \(dropped)")
                    }
                }
                if let dropped = screen["content"]?["dropped"]?.intValue, dropped > 0 { hidden.append("content level: \(dropped)") }
                guard !hidden.isEmpty else { continue }
                let key = "\(driving ? "driving" : "parked"): \(hidden.joined(separator: "; "))"
                if hiddenAt[key] == nil { order.append(key) }
                hiddenAt[key, default: []].append("\(width)×\(height)")
            }
        }
        _ = try? runtime.call("display.set", ["width": 800, "height": 480, "driving": false])
        for key in order {
            let (mode, what) = (key.prefix { $0 != ":" }, key.drop { $0 != ":" }.dropFirst(2))
            report("ui.limits", "\(mode) at \(hiddenAt[key]!.joined(separator: ", ")): the runtime hid entries beyond the limits: \(what)")
        }
    }

    /// Selects each selectable row of its first screen (up to six): each must be completed within 2 s.
    mutating func judgeHandlers(_ runtime: RuntimeConnection) {
        guard let first = screen(runtime), let root = first["stack"]?.arrayValue?.last else { return }
        let depth = first["stack"]?.arrayValue?.count ?? 1
        let tabs = root["tabs"]?.arrayValue ?? [], selected = Int(first["selectedTab"]?.intValue ?? 0)
        let shown = root["type"]?.stringValue == "tabBar" && tabs.indices.contains(selected) ? tabs[selected] : root
        let rows: [JSONValue] = (shown["sections"]?.arrayValue ?? []).flatMap { $0["items"]?.arrayValue ?? [] }
        for row in rows.filter({ $0["selectable"]?.boolValue != false && $0["key"]?.stringValue != nil }).prefix(6) {
            let key = row["key"]?.stringValue ?? "", text = row["text"]?.stringValue ?? key
            guard let id = row["id"]?.intValue, (try? runtime.call("ui.select", ["id": .int(id)])) != nil else { continue }
            let completed = within(2) { !(screen(runtime)?["pending"]?.arrayValue ?? []).contains(.int(id)) }
            if !completed {
                report("ui.handlers", "selecting \"\(text)\" (key \(key)) was not completed within 2 s "
                       + "(the runtime completes it for you at ui.handlerTimeoutMs and counts it)")
            }
            // Back to the first screen: dismiss what the selection presented or pushed.
            for _ in 0..<5 {
                guard let now = screen(runtime), (now["stack"]?.arrayValue?.count ?? 0) > depth || now["modal"] != .null else { break }
                _ = try? runtime.call("ui.back")
            }
        }
        if let timeouts = screen(runtime)?["handlerTimeouts"]?.intValue, timeouts > 0 {
            report("ui.handlers", "\(timeouts) selection(s) were completed by the runtime's timeout, not by the app")
        }
    }

    /// Detaches and attaches the display three times: each attach sets its screen again, which
    /// must not leave the images of the last one behind in the runtime.
    mutating func judgeImages(_ runtime: RuntimeConnection) {
        func kept() -> (count: Int64, bytes: Int64)? {
            screen(runtime)?["images"].map { (DynamicRun.count($0, "count"), DynamicRun.count($0, "bytes")) }
        }
        guard let before = kept() else { return }
        for _ in 0..<3 {
            for attached in [false, true] {
                _ = try? runtime.call("display.set", ["attached": .bool(attached)])
                usleep(100_000)
            }
        }
        guard let after = kept(), after.count > before.count else { return }
        report("ui.images", "it keeps \(after.count) images (\(after.bytes) bytes) after the display attached 3 times more, "
               + "\(before.count) (\(before.bytes) bytes) before: each screen added its images anew; remove_image those it no longer shows, "
               + "or give the same bytes again (they keep their id)")
    }

    /// Browses each tab of its content tree and the first container in each: each level loads.
    mutating func judgeContent(_ runtime: RuntimeConnection) {
        for tab in (screen(runtime)?["content"]?["tabs"]?.arrayValue ?? []).prefix(4) {
            guard judgeLevel(runtime, tab), let items = screen(runtime)?["content"]?["items"]?.arrayValue,
                  let container = items.first(where: { $0["container"]?.boolValue == true }) else { continue }
            judgeLevel(runtime, container)
        }
    }

    /// Browses into `item`; whether its level loaded (a failure or a load still running 2 s on is reported).
    @discardableResult
    private mutating func judgeLevel(_ runtime: RuntimeConnection, _ item: JSONValue) -> Bool {
        guard let path = item["path"]?.stringValue else { return false }
        let title = item["title"]?.stringValue ?? path
        do {
            _ = try runtime.call("ui.select", ["path": .string(path)])
        } catch {
            report("content.loads", "browsing \"\(title)\" (\(path)): \(error.message)")
            return false
        }
        var content: JSONValue?
        let loaded = within(2) {
            content = screen(runtime)?["content"]
            return content?["loading"]?.boolValue == false
        }
        if let failure = content?["error"]?.stringValue {
            report("content.loads", "\"\(title)\" (\(path)) failed to load: \(failure)")
            return false
        }
        if !loaded {
            report("content.loads", "\"\(title)\" (\(path)) is still loading 2 s after it was asked for "
                   + "(complete begin_loading's token; the runtime gives up at ui.handlerTimeoutMs)")
        }
        return loaded
    }
}
