import Synchronization

/// Threads that keep CPUs busy until stopped: "a loaded machine" for figures measured under load.
final class BusyLoad {
    private final class Flag: Sendable {
        let running = Atomic<Bool>(true)
    }

    private let flag = Flag()
    private var threads: [BenchThread] = []

    init(threads count: Int) {
        let flag = flag
        threads = (0..<count).map { _ in
            BenchThread { while flag.running.load(ordering: .relaxed) {} }
        }
    }

    func stop() {
        flag.running.store(false, ordering: .relaxed)
        threads.forEach { $0.join() }
    }
}
