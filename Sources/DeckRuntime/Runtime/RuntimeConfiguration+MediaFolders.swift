import DeckBase

extension RuntimeConfiguration {
    /// Why the media folders cannot be offered to plugins as configured: one holds the runtime's
    /// own files, which every plugin granted `media` could then read. Nil when none does. Paths
    /// are compared with their links resolved.
    public func mediaFolderConflict() -> String? {
        let own = [(files.directory, "files.directory", "clients' recordings"),
                   (dataDirectory, "dataDirectory", "other apps' data folders"),
                   (state.path, "the state file", "the runtime's state")]
        for media in isolation.mediaFolders {
            let realMedia = RuntimeConfiguration.resolved(media)
            for case let (path?, name, contents) in own where AbsolutePath.path(RuntimeConfiguration.resolved(path), isWithin: realMedia) {
                return "the media folder \(PrintableText.excerpt(media)) holds \(name) (\(PrintableText.excerpt(path))): every plugin granted "
                    + "media could read \(contents); keep isolation.mediaFolders apart from the runtime's own files"
            }
        }
        return nil
    }

    /// `path` with its links resolved; one that does not exist yet, by its folder's.
    private static func resolved(_ path: String) -> String {
        if let real = AbsolutePath.real(path) { return real }
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex,
              let folder = AbsolutePath.real(String(path[..<slash])) else { return path }
        return folder + path[slash...]
    }
}
