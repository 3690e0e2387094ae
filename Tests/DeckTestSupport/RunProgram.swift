import Foundation

/// Runs a program to completion and returns its exit status (or the signal that ended it) and
/// combined output; one still running after `timeout` seconds is killed (and the test sees its
/// non-zero status). A grandchild that keeps the output open is not waited for past the kill.
@discardableResult
public func runProgram(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                       timeout: Double = 120) throws -> (status: Int32, output: String) {
    let child = try ChildProgram(path, arguments, environment: environment, output: .pipe)
    guard let pipe = child.output else { throw CommandFailure(description: "\(path): no output pipe") }
    let deadline = Date().addingTimeInterval(timeout)
    var output: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536), killed: Date?
    while true {
        let left = (killed?.addingTimeInterval(1) ?? deadline).timeIntervalSinceNow
        if left <= 0 {
            if killed != nil { break }
            kill(child.processIdentifier, SIGKILL)
            killed = Date()
            continue
        }
        var ready = pollfd(fd: pipe, events: Int16(POLLIN), revents: 0)
        let polled = poll(&ready, 1, Int32(min(left, 60) * 1_000) + 1)
        if polled < 0 && errno != EINTR { break }
        guard polled > 0 else { continue }
        let count = read(pipe, &chunk, chunk.count)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        output += chunk[..<count]
    }
    return (child.terminationStatus, String(decoding: output, as: UTF8.self))
}
