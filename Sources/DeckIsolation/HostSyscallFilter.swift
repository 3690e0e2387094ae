import CProcess
import Glibc

/// The system calls a host refuses its plugin, in a seccomp filter on every thread and in every
/// process it starts: clearing the host's subreaper flag, any call of another ABI, and setting
/// the scheduling, priority or limits of anything but the calling thread; on the
/// runtime's uid under the sandbox, what Landlock leaves open there: changing files' modes,
/// owners and extended attributes (io_uring included) and the uid's kernel keyrings; and, under
/// the sandbox unless the plugin holds `services`, Unix sockets: local services (D-Bus, the user's
/// systemd) know a peer by its uid, on the runtime's uid the runtime's own.
enum HostSyscallFilter {
    /// Installs the filter (no_new_privs must be set); nil, or why it could not be.
    static func apply(refusingFileMetadata: Bool, refusingUnixSockets: Bool) -> String? {
        guard deck_seccomp_refuse(UInt32(PR_SET_CHILD_SUBREAPER), refusingFileMetadata ? 1 : 0, refusingUnixSockets ? 1 : 0) != 0 else { return nil }
        return "a seccomp filter: \(String(cString: strerror(errno)))"
    }
}
