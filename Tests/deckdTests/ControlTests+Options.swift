import DeckTestSupport
import Foundation
import Testing

/// deckctl's global options (`--socket`, `--zone`, `--timeout`, `--json`) after the command too.
extension ControlTests {
    /// After the command a global option still counts (the later `--socket` wins), an unknown one
    /// is the command's, and `--` passes what follows to the command as it is.
    @Test func theGlobalOptionsMayFollowTheCommand() throws {
        let deckd = try daemon()
        #expect(try ctl(deckd, ["status", "--json"]).output.contains(#""version":"0.1.0""#))
        let elsewhere = try ctl(deckd, ["status", "--socket", "/nonexistent/deck.sock"])
        #expect(elsewhere.status == 3 && elsewhere.output.hasPrefix("deckctl: cannot connect to /nonexistent/deck.sock"), "\(elsewhere)")
        #expect(try ctl(deckd, ["status", "--bogus"]).output.hasPrefix("deckctl: status takes no arguments, not --bogus"))
        let literal = try ctl(deckd, ["launch", "org.deck.tone", "--", "--json"])
        #expect(literal.status == 1 && literal.output.contains("unknown item \"--json\""), "\(literal)")
        #expect(try ctl(deckd, ["volume", "media", "--", "-2"]).output.hasPrefix("media  38/40"))
        #expect(deckd.stop() == 0)
    }
}
