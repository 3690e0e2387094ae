import Glibc

/// The machine an ELF file was built for (its `e_machine`). dlopen refuses a library built for
/// another one with "cannot open shared object file: No such file or directory", which hides why.
package struct ELFMachine: Equatable, Sendable, CustomStringConvertible {
    package let code: UInt16

    package init(code: UInt16) { self.code = code }

    /// The machine this process runs on.
    package static var host: ELFMachine {
        #if arch(x86_64)
        ELFMachine(code: 62)
        #elseif arch(arm64)
        ELFMachine(code: 183)
        #else
        ELFMachine(code: 0)
        #endif
    }

    /// The machine in the header of the ELF file at `path`; nil when it is not an ELF file.
    package init?(file path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 20)
        guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 20, 0) }) == 20,
              header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[5] == 1 || header[5] == 2 else { return nil }
        let (low, high) = header[5] == 1 ? (header[18], header[19]) : (header[19], header[18])  // EI_DATA: little or big endian
        code = UInt16(high) << 8 | UInt16(low)
    }

    package var description: String {
        let names: [UInt16: String] = [3: "x86 (32-bit)", 8: "MIPS", 20: "PowerPC", 21: "PowerPC 64", 22: "S/390",
                                       40: "ARM (32-bit)", 62: "x86-64", 183: "AArch64", 243: "RISC-V", 258: "LoongArch"]
        return names[code].map { "\($0) (ELF machine \(code))" } ?? "ELF machine \(code)"
    }
}
