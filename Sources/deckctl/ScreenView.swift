/// How deckctl draws `ui.get` as a head unit would lay it out at the current display profile:
/// the app and the limits in force, tabs, the top template's title, sections and rows with their
/// detail (ids in brackets, for `deckctl select`), buttons, a presented modal, the content tree,
/// and marks where the limits cut or the screen ends. Lines are as wide as the display allows.
struct ScreenView {
    let screen: JSONDocument.Value

    var lines: [String] {
        let display = screen["display"], limits = screen["limits"]
        guard display["attached"].bool != false else { return ["the display is detached (deckctl display --attached on); audio plays on"] }
        guard let app = screen["app"].string else { return ["no app with a UI is loaded"] }
        // What the runtime sends is held to the ranges display.set allows before any arithmetic.
        let pixels = min(max(display["width"].int ?? 800, 240), 8192), scale = min(max(display["scale"].number ?? 1, 0.5), 4)
        let width = max(40, Int(Double(pixels) / (scale * 10)))
        let rows = limits["visibleRows"].int ?? 8
        var out = ["\(app) — \(display["width"].display)×\(display["height"].display)"
                   + (display["driving"].bool == true ? ", driving" : ", parked")
                   + " · quota \(screen["quotaRemaining"].display) of \(limits["quota"].display) left"]
        let stack = screen["stack"].elements
        if let root = stack.first, root["type"].string == "tabBar" {
            let selected = screen["selectedTab"].int ?? 0
            out.append(root["tabs"].elements.enumerated().map { index, tab in
                let title = "[\(tab["id"].display)] \(tab["title"].string ?? tab["key"].display)"
                return index == selected ? "‹\(title)›" : title
            }.joined(separator: "  "))
        }
        if var top = stack.last {
            if top["type"].string == "tabBar" { top = top["tabs"][screen["selectedTab"].int ?? 0] }
            out += template(top, rows: rows)
        }
        if screen["modal"].exists && screen["modal"].string == nil && screen["modal"]["type"].exists {
            out.append("┌ \(screen["modal"]["type"].display): \(screen["modal"]["title"].string ?? "")")
            out += screen["modal"]["buttons"].elements.map { "│ [\($0["id"].display)] \($0["text"].display)" }
        }
        let content = screen["content"]
        if content.exists {
            out.append("content: " + content["tabs"].elements.map { "[/\($0["path"].display)] \($0["title"].display)" }.joined(separator: "  "))
            if content["loading"].bool == true { out.append("  loading…") }
            if let error = content["error"].string { out.append("  ✕ \(error)") }
            for item in content["items"].elements {
                let marks = (item["playing"].bool == true ? " ♪" : "") + (item["container"].bool == true ? " ›" : "")
                out.append("  [/\(item["path"].display)] \(item["title"].display)" + (item["subtitle"].string.map { " — \($0)" } ?? "") + marks)
            }
            if let dropped = content["dropped"].int { out.append("  … \(dropped) more not shown (contentItems)") }
        }
        return out.map { $0.count > width ? String($0.prefix(width - 1)) + "…" : $0 }
    }

    private func template(_ template: JSONDocument.Value, rows: Int) -> [String] {
        var out = ["═ \(template["title"].string ?? template["type"].display) (\(template["type"].display))"]
        var shown = 0, hidden = 0
        for section in template["sections"].elements {
            if let header = section["header"].string { out.append("  \(header)") }
            for item in section["items"].elements {
                guard shown < rows else {
                    hidden += 1
                    continue
                }
                shown += 1
                let id = item["selectable"].bool == false ? "    " : "[\(item["id"].display)]"
                let detail = item["detail"].string.map { " — \($0)" } ?? ""
                let marks = (item["playing"].bool == true ? " ♪" : "") + (item["accessory"].string == "disclosure" ? " ›" : "")
                out.append("  \(id) \(item["text"].display)\(detail)\(marks)")
            }
        }
        if hidden > 0 { out.append("  ▼ \(hidden) more below") }
        if let dropped = template["dropped"].int { out.append("  … \(dropped) cut by the limits") }
        let buttons = template["buttons"].elements
        if !buttons.isEmpty { out.append("  " + buttons.map { "[\($0["id"].display)] \($0["text"].display)" }.joined(separator: "  ")) }
        return out
    }
}
