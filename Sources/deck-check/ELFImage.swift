import Glibc

/// What a shared library says about itself without being loaded: its machine and type, the
/// symbols it defines and imports, the libraries it needs and where it looks for them. ELF64
/// little-endian only (what Deck runs on); every offset is checked against the file's size.
struct ELFImage {
    struct Symbol: Equatable {
        var name: String
        var isFunction: Bool
    }

    var machine: UInt16
    var isSharedObject: Bool
    /// Global and weak symbols it defines (its exports).
    var exports: [Symbol] = []
    /// Symbols it uses from other libraries.
    var imports: [String] = []
    /// DT_NEEDED: the libraries the dynamic loader must find.
    var needed: [String] = []
    /// DT_RUNPATH or DT_RPATH, split at ':'.
    var searchPath: [String] = []

    enum ReadError: Error, CustomStringConvertible {
        case unreadable(String)
        case notAFile
        case notELF(String)

        var description: String {
            switch self {
            case .unreadable(let reason): "cannot read it: \(reason)"
            case .notAFile: "it is not a regular file (a folder, a FIFO or a device): the runtime refuses it"
            case .notELF(let reason): "it is not a 64-bit little-endian ELF shared library: \(reason)"
            }
        }
    }

    static let maxBytes = 512 << 20

    init(path: String) throws(ReadError) {
        // Not blocking: a FIFO in the library's place would wait for a writer forever.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notAFile }
        let size = Int(info.st_size)
        guard size >= 64, size <= ELFImage.maxBytes else { throw .notELF("its size is \(size) bytes") }
        var bytes = [UInt8](repeating: 0, count: size)
        guard bytes.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, size, 0) }) == size else { throw .unreadable("short read") }
        try self.init(bytes: bytes)
    }

    /// The whole file, for `mentions`.
    private let contents: [UInt8]

    /// Whether `text` appears anywhere in the file (its read-only data holds its string constants).
    func mentions(_ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard let first = needle.first, needle.count <= contents.count else { return false }
        var index = 0
        while let found = contents[index...].firstIndex(of: first), found + needle.count <= contents.count {
            if contents[found..<(found + needle.count)].elementsEqual(needle) { return true }
            index = found + 1
        }
        return false
    }

    init(bytes: [UInt8]) throws(ReadError) {
        contents = bytes
        let image = Bytes(bytes)
        guard bytes.starts(with: [0x7F, 0x45, 0x4C, 0x46]) else { throw .notELF("no ELF magic") }
        guard bytes[4] == 2, bytes[5] == 1 else { throw .notELF("class \(bytes[4]), data \(bytes[5])") }
        machine = image.u16(18) ?? 0
        isSharedObject = image.u16(16) == 3
        guard let sectionOffset = image.u64(0x28), let entrySize = image.u16(0x3A), let count = image.u16(0x3C),
              entrySize >= 64 else { throw .notELF("no section table") }
        struct Section { var type: UInt32; var offset: Int; var size: Int; var link: Int; var entrySize: Int }
        var sections: [Section] = []
        for index in 0..<Int(count) {
            let base = Int(sectionOffset) + index * Int(entrySize)
            guard let type = image.u32(base + 4), let offset = image.u64(base + 0x18), let size = image.u64(base + 0x20),
                  let link = image.u32(base + 0x28), let entry = image.u64(base + 0x38),
                  offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset else { throw .notELF("section \(index) lies outside the file") }
            sections.append(Section(type: type, offset: Int(offset), size: Int(size), link: Int(link), entrySize: Int(entry)))
        }
        let dynsymType: UInt32 = 11, dynamicType: UInt32 = 6
        if let symbols = sections.first(where: { $0.type == dynsymType }), sections.indices.contains(symbols.link), symbols.entrySize >= 24 {
            let names = sections[symbols.link]
            for index in 1..<max(1, symbols.size / symbols.entrySize) {
                let base = symbols.offset + index * symbols.entrySize
                guard let nameOffset = image.u32(base), let info = image.u8(base + 4), let sectionIndex = image.u16(base + 6),
                      let name = image.string(names.offset + Int(nameOffset), limit: names.offset + names.size), !name.isEmpty else { continue }
                let binding = info >> 4, type = info & 0xF
                if sectionIndex == 0 {
                    imports.append(name)
                } else if binding == 1 || binding == 2 {  // global, weak
                    exports.append(Symbol(name: name, isFunction: type == 2))
                }
            }
        }
        if let dynamic = sections.first(where: { $0.type == dynamicType }), sections.indices.contains(dynamic.link) {
            let names = sections[dynamic.link]
            var offset = dynamic.offset
            while offset + 16 <= dynamic.offset + dynamic.size, let tag = image.u64(offset), tag != 0, let value = image.u64(offset + 8) {
                let text = value < UInt64(names.size) ? image.string(names.offset + Int(value), limit: names.offset + names.size) : nil
                switch tag {
                case 1: if let text { needed.append(text) }  // DT_NEEDED
                case 15, 29: if let text { searchPath = text.split(separator: ":").map(String.init) }  // DT_RPATH, DT_RUNPATH
                default: break
                }
                offset += 16
            }
        }
    }

    /// Bounds-checked little-endian reads.
    private struct Bytes {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func u8(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }
        func u16(_ at: Int) -> UInt16? { read(at, 2).map { UInt16($0) } }
        func u32(_ at: Int) -> UInt32? { read(at, 4).map { UInt32($0) } }
        func u64(_ at: Int) -> UInt64? { read(at, 8) }

        private func read(_ at: Int, _ count: Int) -> UInt64? {
            guard at >= 0, at <= bytes.count - count else { return nil }
            var value: UInt64 = 0
            for index in (0..<count).reversed() { value = value << 8 | UInt64(bytes[at + index]) }
            return value
        }

        func string(_ at: Int, limit: Int) -> String? {
            guard at >= 0, at < min(limit, bytes.count) else { return nil }
            guard let end = bytes[at..<min(limit, bytes.count)].firstIndex(of: 0) else { return nil }
            return String(decoding: bytes[at..<end], as: UTF8.self)
        }
    }
}
