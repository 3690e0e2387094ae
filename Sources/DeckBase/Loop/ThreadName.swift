import CProcess

/// The name `top -H`, `ps -L` and profilers show for the calling thread (15 bytes at most).
public enum ThreadName {
    public static func set(_ name: String) { deck_set_thread_name(String(name.utf8.prefix(15))!) }
}
