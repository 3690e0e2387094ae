import CProcess
import Glibc

/// The system calls a host refuses its plugin, in a seccomp filter on every thread and in every
/// process it starts: clearing the host's subreaper flag, any call of another ABI, and, on the
/// runtime's uid under the sandbox, what Landlock leaves open there: changing files' modes,
/// owners and extended attributes (io_uring included), and the uid's kernel keyrings.
enum HostSyscallFilter {
    /// Installs the filter (no_new_privs must be set); nil, or why it could not be.
    static func apply(refusingFileMetadata: Bool) -> String? {
        guard deck_seccomp_refuse(UInt32(PR_SET_CHILD_SUBREAPER), refusingFileMetadata ? 1 : 0) != 0 else { return nil }
        return "a seccomp filter: \(String(cString: strerror(errno)))"
    }
}
