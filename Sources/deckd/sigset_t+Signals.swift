import Glibc

extension sigset_t {
    /// The set of the signals `numbers`.
    init(_ numbers: [Int32]) {
        self.init()
        sigemptyset(&self)
        numbers.forEach { sigaddset(&self, $0) }
    }
}
