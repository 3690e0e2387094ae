import CProcess

/// The name `top -H`, `ps -L` and profilers show for the calling thread; the kernel keeps its
/// first 15 bytes.
public enum ThreadName {
    public static func set(_ name: String) { deck_set_thread_name(name) }
}
