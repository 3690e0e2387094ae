/// One app's navigation stack: a root, what was pushed over it, at most one presented modal,
/// and the task's template quota (Android for Cars' rule: 5 per task; refreshes are free, pops
/// give it back, a navigation template or a launch from the HMI starts a new task).
public struct TemplateStack: Equatable, Sendable {
    public private(set) var templates: [Template] = []
    public private(set) var modal: Template?
    /// Templates counted against the current task.
    public private(set) var quotaUsed = 0
    /// The tab shown when the root is a tab bar.
    public var selectedTab = 0

    public init() {}

    public var root: Template? { templates.first }
    /// What the driver sees on top: the modal, else the last pushed template.
    public var top: Template? { modal ?? templates.last }

    public func quotaRemaining(_ limits: DisplayLimits) -> Int { max(0, limits.quota - quotaUsed) }

    /// Whether the now-playing template is on the stack, as a template or a tab.
    public var showsNowPlaying: Bool { templates.contains { $0.nowPlayingCount > 0 } }

    /// Replaces the stack: a new task.
    mutating func setRoot(_ template: Template) throws(UIError) {
        guard !template.kind.isModal else { throw .invalid("\(template.kind.withArticle) is presented with present(), not set as the root") }
        guard template.nowPlayingCount <= 1 else { throw TemplateStack.secondNowPlaying }
        templates = [template]
        modal = nil
        quotaUsed = 1
        selectedTab = 0
    }

    mutating func push(_ template: Template, limits: DisplayLimits) throws(UIError) {
        guard !templates.isEmpty else { throw .state("there is no root yet; call set_root first") }
        guard template.kind != .tabBar else { throw .limit("a tab bar may only be the root (set_root); it cannot be pushed") }
        guard !template.kind.isModal else { throw .invalid("\(template.kind.withArticle) is presented with present(), not pushed") }
        guard templates.count < limits.depth else {
            throw .limit("the stack is \(templates.count) templates deep, the limit for this app (depth is \(limits.depth))")
        }
        if template.kind == .nowPlaying, showsNowPlaying { throw TemplateStack.secondNowPlaying }
        if template.kind.startsTask {
            quotaUsed = 1
        } else {
            try spendQuota(limits)
        }
        templates.append(template)
    }

    mutating func pop() throws(UIError) {
        guard templates.count > 1 else { throw .state("only the root is on the stack") }
        templates.removeLast()
        quotaUsed = max(1, quotaUsed - 1)
    }

    mutating func popToRoot() throws(UIError) {
        guard !templates.isEmpty else { throw .state("there is no root yet") }
        quotaUsed = max(1, quotaUsed - (templates.count - 1))
        templates.removeLast(templates.count - 1)
    }

    mutating func present(_ template: Template) throws(UIError) {
        guard template.kind.isModal else { throw .invalid("only an alert or an action sheet is presented; \(template.kind.withArticle) is pushed") }
        if let modal { throw .limit("\(modal.kind.withArticle) is presented already; dismiss it first (one modal at a time)") }
        modal = template
    }

    mutating func dismiss() throws(UIError) {
        guard modal != nil else { throw .state("nothing is presented") }
        modal = nil
    }

    /// Replaces the template with `id` in place; free when it is a refresh (same main content).
    mutating func update(_ template: Template, limits: DisplayLimits) throws(UIError) {
        if modal?.id == template.id {
            modal = template
            return
        }
        guard let index = templates.firstIndex(where: { $0.id == template.id }) else {
            throw .invalid("no template with id \(template.id) on the stack")
        }
        if !templates[index].hasSameMainContent(as: template) { try spendQuota(limits) }
        templates[index] = template
    }

    /// A launch from the HMI starts a new task with what is shown.
    mutating func startTask() { quotaUsed = templates.isEmpty ? 0 : 1 }

    /// Forgets everything: the display went away.
    mutating func clear() { self = TemplateStack() }

    private static let secondNowPlaying = UIError.limit("the now-playing template is on the stack already; there is one, shared")

    private mutating func spendQuota(_ limits: DisplayLimits) throws(UIError) {
        guard quotaUsed < limits.quota else {
            throw .limit("the task's \(limits.quota) templates are used (quota); pop back, refresh in place, or start a new task")
        }
        quotaUsed += 1
    }
}
