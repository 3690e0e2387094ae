import CProcess

/// The calling thread's kernel id (`gettid`): what `/proc/PID/task` lists and what the kernel's
/// scheduling calls take.
public enum KernelThread {
    public static var id: Int32 { deck_thread_id() }
}
