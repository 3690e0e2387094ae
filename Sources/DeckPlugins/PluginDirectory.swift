/// Every loaded plugin, in load order, found by id or by the instance number its host calls carry:
/// the port the coordinators read from construction on, written only by the registry.
/// Loop-thread-confined.
public final class PluginDirectory: RandomAccessCollection {
    private var loaded: [PluginInstance] = []
    private var byInstance: [Int: PluginInstance] = [:]

    public init() {}

    public var startIndex: Int { loaded.startIndex }
    public var endIndex: Int { loaded.endIndex }
    public subscript(position: Int) -> PluginInstance { loaded[position] }
    public var count: Int { loaded.count }
    /// A walk over the list as it was when it began, reading the stored list once (the default
    /// iterator reads it, with an exclusivity check, at every step).
    public func makeIterator() -> IndexingIterator<[PluginInstance]> { loaded.makeIterator() }

    public func plugin(id: String) -> PluginInstance? { loaded.first { $0.id == id } }

    /// The plugin behind a host call's instance number; nil while it is still in `init`.
    package func plugin(instance: Int) -> PluginInstance? { byInstance[instance] }

    func add(_ plugin: PluginInstance, instance: Int) {
        byInstance[instance] = plugin
        loaded.append(plugin)
    }

    func remove(_ plugin: PluginInstance) {
        loaded.removeAll { $0 === plugin }
        byInstance = byInstance.filter { $0.value !== plugin }
    }
}
