import DeckBase
import DeckMedia

/// One app's part of the car's display: its template stack with the runtime's ids, the images it
/// handed over, its content tree, and what it did wrong. Ids are never reused within a run; an
/// item keeps its id across refreshes of its template. Loop-thread-confined.
public final class AppInterface {
    public let appID: String
    public let entitlements: Set<Entitlement>
    public private(set) var stack = TemplateStack() {
        // The ids of templates that left the stack are forgotten, so none pile up over a long drive.
        didSet {
            guard itemIDs.count > stack.templates.count + (stack.modal == nil ? 0 : 1) else { return }
            func isOnStack(_ id: UInt64) -> Bool { stack.modal?.id == id || stack.templates.contains { $0.id == id } }
            itemIDs = itemIDs.filter { id, _ in isOnStack(id) }
            truncationReported = truncationReported.filter(isOnStack)
        }
    }
    public let content = ContentTree()
    /// Selection handlers the runtime had to complete for the app.
    public var handlerTimeouts = 0
    /// Whether the app offers the template side and the content side.
    public var offersTemplates = false
    public var offersContent = false
    /// The id the next template, item or image gets; a later interface for the same app starts here.
    public private(set) var nextID: UInt64
    /// Per template on the stack, its items', buttons' and tabs' keys → their ids, as of its last
    /// read (a key is unique within a template, tabs included).
    private var itemIDs: [UInt64: [String: UInt64]] = [:]
    private var images: ImageStore
    /// Templates whose truncation was logged already.
    private var truncationReported: Set<UInt64> = []

    public init(appID: String, entitlements: Set<Entitlement>, maxImageBytes: Int = 1 << 20, maxImagePixels: Int = 1 << 24,
                maxImageTotalBytes: Int = 32 << 20, firstID: UInt64 = 1) {
        self.appID = appID
        self.entitlements = entitlements
        nextID = firstID
        images = ImageStore(maxBytes: maxImageBytes, maxPixels: maxImagePixels, maxTotalBytes: maxImageTotalBytes)
    }

    public var hasUI: Bool { offersTemplates || offersContent }

    // MARK: Plugin calls

    public func setRoot(_ text: String, limits: DisplayLimits) throws(UIError) -> (id: UInt64, dropped: Int) {
        let (template, shortened, ids) = try read(text, limits: limits, keeping: nil)
        try stack.setRoot(template)
        itemIDs[template.id] = ids
        return (template.id, template.visible(under: limits).dropped + shortened)
    }

    public func push(_ text: String, limits: DisplayLimits) throws(UIError) -> (id: UInt64, dropped: Int) {
        let (template, shortened, ids) = try read(text, limits: limits, keeping: nil)
        try stack.push(template, limits: limits)
        itemIDs[template.id] = ids
        return (template.id, template.visible(under: limits).dropped + shortened)
    }

    public func present(_ text: String, limits: DisplayLimits) throws(UIError) -> UInt64 {
        let (template, _, ids) = try read(text, limits: limits, keeping: nil)
        try stack.present(template)
        itemIDs[template.id] = ids
        return template.id
    }

    public func update(_ id: UInt64, _ text: String, limits: DisplayLimits) throws(UIError) -> Int {
        guard let old = stack.templates.first(where: { $0.id == id }) ?? stack.modal.flatMap({ $0.id == id ? $0 : nil }) else {
            throw .invalid("no template with id \(id) on the stack")
        }
        let (template, shortened, ids) = try read(text, limits: limits, keeping: old)
        guard template.kind == old.kind else { throw .invalid("update keeps a template's type: \(id) is \(old.kind.withArticle), not \(template.kind.withArticle)") }
        try stack.update(template, limits: limits)
        itemIDs[id] = ids
        return template.visible(under: limits).dropped + shortened
    }

    public func pop() throws(UIError) { try stack.pop() }
    public func popToRoot() throws(UIError) { try stack.popToRoot() }
    public func dismiss() throws(UIError) { try stack.dismiss() }

    /// Keeps PNG or JPEG bytes for templates to name; the same bytes again get the id they have.
    public func addImage(_ bytes: [UInt8]) throws(UIError) -> UInt64 {
        try images.add(bytes, newID: takeID)
    }

    /// Forgets image `id`, unless a template on the stack still shows it.
    public func removeImage(_ id: UInt64) throws(UIError) {
        guard images[id] != nil else { throw .invalid("no image \(id): not an id from add_image, or removed already") }
        if let template = (stack.templates + [stack.modal].compactMap { $0 }).first(where: { $0.shows(image: id) }) {
            throw .state("image \(id) is shown by template \(template.id): update or pop it first")
        }
        images.remove(id)
    }

    /// The images kept and their bytes, all together.
    public var imageUsage: (count: Int, bytes: Int) { (images.count, images.totalBytes) }

    public func image(_ id: UInt64) -> Artwork? { images[id] }

    // MARK: The HMI's side

    /// The display went away, or the app is gone: every template id becomes invalid.
    public func clear() {
        stack.clear()
        content.reload()
    }

    public func startTask() { stack.startTask() }

    public func selectTab(_ index: Int) { stack.selectedTab = index }

    /// A placeholder root for an app that did not set one when the display attached.
    public func setPlaceholder(title: String) {
        var template = Template(kind: .list)
        template.id = takeID()
        template.title = title
        template.sections = [TemplateSection(items: [TemplateItem(id: takeID(), text: "\(title) has nothing to show", fields: ["kind": "message"])])]
        try? stack.setRoot(template)
    }

    /// Reports a template's truncation once: true the first time for `id`.
    public func firstTruncation(of id: UInt64) -> Bool { truncationReported.insert(id).inserted }

    // MARK: Reading

    /// The template in `text` with its ids, and the ids by key to keep once the stack takes it.
    private func read(_ text: String, limits: DisplayLimits, keeping old: Template?) throws(UIError) -> (Template, Int, [String: UInt64]) {
        var (template, shortened) = try Template.parse(text, rules: TemplateRules(entitlements: entitlements, limits: limits) { [images] in images[$0] != nil })
        template.id = old?.id ?? takeID()
        var ids: [String: UInt64] = [:]
        assignIDs(&template, known: itemIDs[template.id] ?? [:], into: &ids)
        return (template, shortened, ids)
    }

    /// Gives every tab and item an id: the one its key had at the template's last read, or a new one.
    private func assignIDs(_ template: inout Template, known: [String: UInt64], into ids: inout [String: UInt64]) {
        func itemID(_ key: String?) -> UInt64 {
            guard let key else { return takeID() }
            let id = known[key] ?? takeID()
            ids[key] = id
            return id
        }
        for section in template.sections.indices {
            for item in template.sections[section].items.indices { template.sections[section].items[item].id = itemID(template.sections[section].items[item].key) }
        }
        for button in template.buttons.indices { template.buttons[button].id = itemID(template.buttons[button].key) }
        for tab in template.tabs.indices {
            template.tabs[tab].id = itemID(template.tabs[tab].key)
            assignIDs(&template.tabs[tab], known: known, into: &ids)
        }
    }

    /// How many item ids are kept, for all templates together.
    var keptItemIDs: Int { itemIDs.values.reduce(0) { $0 + $1.count } }

    private func takeID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }
}
