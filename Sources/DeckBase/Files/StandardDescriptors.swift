import CProcess
import Glibc

/// Descriptors 0, 1 and 2 kept open. A process started with one closed (`2>&-`, an init system
/// that closes them) would hand that number to its first pipe or socket, and its log lines and
/// prints would go there: into libuv's signal pipe, which fills at 64 KiB and blocks the loop.
/// And what a program prints reaches its output, or it says why not.
public enum StandardDescriptors {
    /// Opens /dev/null on each of 0–2 that is closed; call first thing in `main`, before any
    /// descriptor is opened.
    public static func openClosedOnes() {
        while true {
            let descriptor = open("/dev/null", O_RDWR)
            guard descriptor > 2 else {
                if descriptor < 0 { return }  // no /dev/null (a bare chroot): nothing to fill them with
                continue
            }
            close(descriptor)
            return
        }
    }

    /// Writes out what `print` buffered: nil, or why the output could not be written (a full
    /// disk; a reader gone while SIGPIPE is ignored), which a tool reports rather than exit 0.
    public static func flushOutput() -> String? {
        let code = deck_flush_standard_output()
        return code == 0 ? nil : String(cString: strerror(code))
    }
}
