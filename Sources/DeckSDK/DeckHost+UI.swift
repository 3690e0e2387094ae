import CDeckPlugin

/// `deck.ui` and `deck.content`: templates on the car's display and the content tree's notices.
/// Loop thread; every call copies what it is given.
extension DeckHost {
    /// Replaces the stack with `template` (a new task). Returns its id and how many entries the
    /// limits hid.
    @discardableResult
    public func setRoot(_ template: DeckTemplate) throws(DeckError) -> (id: UInt64, dropped: Int) {
        try place(template, try ui().pointee.set_root)
    }

    @discardableResult
    public func push(_ template: DeckTemplate) throws(DeckError) -> (id: UInt64, dropped: Int) {
        try place(template, try ui().pointee.push)
    }

    private typealias Placement = @convention(c) (UnsafePointer<deck_host_t>?, UnsafePointer<CChar>?, UnsafeMutablePointer<UInt64>?,
                                                  UnsafeMutablePointer<UInt32>?) -> deck_status_t

    private func place(_ template: DeckTemplate, _ call: Placement?) throws(DeckError) -> (id: UInt64, dropped: Int) {
        var id: UInt64 = 0, dropped: UInt32 = 0
        try check(call?(raw, template.json, &id, &dropped) ?? deck_status_t(DECK_E_UNSUPPORTED))
        return (id, Int(dropped))
    }

    /// Refreshes a template in place (free of quota when its main content stays).
    @discardableResult
    public func update(_ id: UInt64, _ template: DeckTemplate) throws(DeckError) -> Int {
        let table = try ui()
        var dropped: UInt32 = 0
        try check(table.pointee.update(raw, id, template.json, &dropped))
        return Int(dropped)
    }

    @discardableResult
    public func present(_ template: DeckTemplate) throws(DeckError) -> UInt64 {
        let table = try ui()
        var id: UInt64 = 0
        try check(table.pointee.present(raw, template.json, &id))
        return id
    }

    public func pop() throws(DeckError) { try check(try ui().pointee.pop(raw)) }
    public func popToRoot() throws(DeckError) { try check(try ui().pointee.pop_to_root(raw)) }
    public func dismiss() throws(DeckError) { try check(try ui().pointee.dismiss(raw)) }

    /// Ends the handling of a selection (the HMI's spinner stops).
    public func completeSelection(_ token: UInt64) throws(DeckError) { try check(try ui().pointee.complete(raw, token)) }

    /// Hands over PNG or JPEG bytes; templates name them by the id returned (the same bytes again:
    /// the same id).
    public func addImage(_ bytes: [UInt8]) throws(DeckError) -> UInt64 {
        let table = try ui()
        var id: UInt64 = 0
        try check(bytes.withUnsafeBytes { table.pointee.add_image(raw, $0.baseAddress, $0.count, &id) })
        return id
    }

    /// Forgets an image (ABI 1.6), giving its bytes back to the budget all of a plugin's images share.
    public func removeImage(_ id: UInt64) throws(DeckError) {
        let table = try ui()
        guard raw.pointee.abi.minor >= 6, let call = table.pointee.remove_image else {
            throw DeckError(.unsupported, "the host implements ABI \(raw.pointee.abi.major).\(raw.pointee.abi.minor); remove_image is 1.6")
        }
        try check(call(raw, id))
    }

    /// The content tree changed: the host reads it again.
    public func reloadContent() throws(DeckError) { try check(try content().pointee.reload(raw)) }

    /// Answers `beginLoading` or `play`.
    public func completeContent(_ token: UInt64, _ error: DeckError.Code? = nil) throws(DeckError) {
        try check(try content().pointee.complete(raw, token, error?.rawValue ?? deck_status_t(DECK_OK)))
    }

    /// The ids of the content items playing now.
    public func setNowPlayingContent(_ ids: [String]) throws(DeckError) {
        let table = try content()
        try check(CStrings.with(ids) { pointers in
            pointers.withUnsafeBufferPointer { table.pointee.set_now_playing_ids(raw, $0.baseAddress, UInt32(ids.count)) }
        })
    }

    private func ui() throws(DeckError) -> UnsafePointer<deck_host_ui_t> {
        guard let pointer = extensionPointer(DECK_EXT_UI) else {
            throw DeckError(.unsupported, "the host does not offer deck.ui (it implements ABI \(raw.pointee.abi.major).\(raw.pointee.abi.minor))")
        }
        return pointer.assumingMemoryBound(to: deck_host_ui_t.self)
    }

    private func content() throws(DeckError) -> UnsafePointer<deck_host_content_t> {
        guard let pointer = extensionPointer(DECK_EXT_CONTENT) else {
            throw DeckError(.unsupported, "the host does not offer deck.content (it implements ABI \(raw.pointee.abi.major).\(raw.pointee.abi.minor))")
        }
        return pointer.assumingMemoryBound(to: deck_host_content_t.self)
    }
}
