/// The request line and headers of an HTTP/1.x request, parsed strictly: anything unexpected is a
/// 400, never a guess.
package struct HTTPRequestHead: Equatable {
    package var method: String
    package var target: String
    package var version: String
    package var headers: [(name: String, value: String)]

    package static func == (a: HTTPRequestHead, b: HTTPRequestHead) -> Bool {
        a.method == b.method && a.target == b.target && a.version == b.version
            && a.headers.elementsEqual(b.headers) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The length of the head including its blank line, once `bytes` hold a whole one. Lines end
    /// in CRLF or, as RFC 9112 2.2 lets a recipient take them, a bare LF.
    package static func headLength(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 1..<bytes.count where bytes[index] == 10 {
            if bytes[index - 1] == 10 || (index >= 2 && bytes[index - 1] == 13 && bytes[index - 2] == 10) { return index + 1 }
        }
        return nil
    }

    /// Parses a complete head (ending in a blank line); nil when it is malformed.
    package static func parse(_ bytes: ArraySlice<UInt8>) -> HTTPRequestHead? {
        var lines: [String] = []
        for line in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            let content = line.last == 13 ? line.dropLast() : line
            guard !content.contains(13), let text = String(validating: content, as: UTF8.self) else { return nil }  // a bare CR
            lines.append(text)
        }
        guard lines.count >= 3, lines.removeLast() == "", lines.removeLast() == "" else { return nil }
        var request = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard request.count == 3 else { return nil }
        request[1] = originForm(request[1])
        guard !request[0].isEmpty, request[0].allSatisfy({ $0.isASCII && $0.isUppercase }),
              request[1].hasPrefix("/"), !request[1].contains(where: { $0.isWhitespace }),
              request[2] == "HTTP/1.1" || request[2] == "HTTP/1.0" else { return nil }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                  !line[..<colon].contains(where: { $0.isWhitespace }) else { return nil }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append((String(line[..<colon]), String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed())))
        }
        return HTTPRequestHead(method: request[0], target: request[1], version: request[2], headers: headers)
    }

    /// `path` with its %XX escapes decoded, so `/%C3%BC.opus` and `/ü.opus` name one mount; nil
    /// when an escape is malformed or the bytes are not UTF-8.
    static func decoded(_ path: Substring) -> String? {
        var bytes: [UInt8] = [], input = Array(path.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard input.count >= 2, let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            input = input.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The path and query of an absolute-form target (`http://car:8000/stream.opus`, which a server
    /// must accept, RFC 9112 3.2.2, and players behind a proxy send); any other target as it is.
    static func originForm(_ target: String) -> String {
        guard target.prefix(7).lowercased() == "http://" else { return target }
        let afterScheme = target.dropFirst(7)
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
        guard authorityEnd != afterScheme.startIndex else { return target }  // no host: refused as it is
        let rest = afterScheme[authorityEnd...]
        return rest.hasPrefix("/") ? String(rest) : "/" + rest
    }
}
