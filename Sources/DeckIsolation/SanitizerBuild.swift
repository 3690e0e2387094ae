import Glibc

/// A build with AddressSanitizer or ThreadSanitizer (`make asan`, `make tsan`): its host processes
/// report where the runtime does. In any other build none of this applies.
enum SanitizerBuild {
    /// The sanitizers' runtime exports this; nothing else does.
    static let active = dlsym(nil, "__sanitizer_print_stack_trace") != nil

    /// The sanitizer options a host keeps from the runtime's environment (its `log_path` among them).
    static let optionVariables = ["ASAN_OPTIONS", "TSAN_OPTIONS"]

    /// The folder of the `log_path` the options name, which a host's sandbox lets it write; nil
    /// outside a sanitizer build, or when the reports go to stderr.
    static let logFolder: String? = active
        ? optionVariables.lazy.compactMap { getenv($0).flatMap { logFolder(in: String(cString: $0)) } }.first : nil

    /// The folder of an absolute `log_path` in sanitizer options (`a=1 log_path=/r/report:b=2`).
    static func logFolder(in options: String) -> String? {
        guard let option = options.split(whereSeparator: { $0 == " " || $0 == ":" }).last(where: { $0.hasPrefix("log_path=/") }) else { return nil }
        let path = option.dropFirst("log_path=".count)
        guard let slash = path.lastIndex(of: "/"), slash > path.startIndex else { return nil }  // never the whole filesystem
        return String(path[..<slash])
    }
}
