/// What a station's stream URL must be for FFmpeg to reach it at all.
extension Station {
    /// Why `streamURL` cannot name a stream, or nil. An http(s) or icecast URL needs a host, a
    /// port from 1 to 65535 when it names one, and no space (FFmpeg would send one raw and the
    /// server answer 400, or take port 99999 as an error retried six times); other schemes are
    /// the integrator's choice.
    var streamURLProblem: String? {
        let lower = streamURL.lowercased()
        guard let scheme = ["http://", "https://", "icecast://"].first(where: lower.hasPrefix) else { return nil }
        if streamURL.contains(where: \.isWhitespace) { return "has a space in its streamURL (write it %20)" }
        var authority = streamURL.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }  // user:password@
        let host: Substring, port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return "has an IPv6 address without its closing ] in its streamURL" }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return "has something after its IPv6 address's ] in its streamURL" }
            port = rest.isEmpty ? nil : rest.dropFirst()
        } else if let colon = authority.lastIndex(of: ":") {
            (host, port) = (authority[..<colon], authority[authority.index(after: colon)...])
        } else {
            (host, port) = (authority, nil)
        }
        if host.isEmpty { return "has no host in its streamURL" }
        if let port, !port.isEmpty, !(port.allSatisfy { $0.isASCII && $0.isNumber } && Int(port).map { (1...65_535).contains($0) } == true) {
            return "has the port \(port.prefix(20)) in its streamURL, not one from 1 to 65535"
        }
        return nil
    }
}
