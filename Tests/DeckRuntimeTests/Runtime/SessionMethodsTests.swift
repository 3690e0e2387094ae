import Foundation
import DeckTestSupport
import Testing
@testable import DeckRuntime
@testable import DeckSession

/// `session.configure`: the integrator changes the session's settings at run time, validated as
/// the config file's `session` section is; `session.request`'s flags are checked as strictly.
@Suite struct SessionMethodsTests {
    @Test func navigationDuringACallIsTheDriversChoiceAtRunTime() throws {
        let runtime = try Runtime(configuration: RuntimeConfiguration(), logger: LogCapture().logger)
        defer { runtime.shutdown() }
        let dispatcher = runtime.makeDispatcher()
        let phone = FocusRequest(owner: .integrator("phone"), context: .call, type: .gainTransient)
        let prompt = FocusRequest(owner: .integrator("maps"), context: .navigation, type: .gainTransientMayDuck)
        #expect(runtime.focus.requestFocus(phone) == .granted)
        #expect(runtime.focus.requestFocus(prompt) == .granted)  // AAOS's default: prompts play during calls
        runtime.focus.abandonFocus(prompt.owner)

        let settings = try dispatcher.answer("session.configure", #"{"navigationDuringCall":"reject","duckDb":-20}"#)
        #expect(settings["result"]?["navigationDuringCall"] == "reject", "\(settings.encoded())")
        #expect(settings["result"]?["duckDb"] == -20.0)
        #expect(settings["result"]?["idleTimeoutMs"] == 5_000)  // the rest unchanged
        #expect(runtime.focus.requestFocus(prompt) == .rejected("blocked by integrator:phone (call)"))
        #expect(runtime.session.policy.duckGain == Float(pow(10, -20.0 / 20)))
    }

    @Test(arguments: [(#"{"duckDb":5}"#, "Invalid params: session.duckDb must be -96 to 0 dB"),
                      (#"{"idleTimeoutMs":0.5}"#, "Invalid params: session.idleTimeoutMs must be a whole number of milliseconds, not 0.5"),
                      (#"{"navigationDuringCall":"maybe"}"#, "Invalid params: session.navigationDuringCall must be play or reject"),
                      (#"{"matrix":{}}"#, "Invalid params: unknown parameter \"matrix\" for session.configure")])
    func badSettingsAreRefusedAndChangeNothing(params: String, message: String) throws {
        let runtime = try Runtime(configuration: RuntimeConfiguration(), logger: LogCapture().logger)
        defer { runtime.shutdown() }
        let answer = try runtime.makeDispatcher().answer("session.configure", params)
        #expect(answer["error"]?["code"] == -32602)
        #expect(answer["error"]?["message"]?.stringValue == message)
        #expect(runtime.session.policy == SessionPolicy())
    }

    @Test(arguments: ["acceptsDelayedFocus", "pausesOnDuck"], [#""yes""#, "1", "{}"])
    func aRequestFlagThatIsNotABooleanIsRefusedNotReadAsFalse(flag: String, value: String) throws {
        let runtime = try Runtime(configuration: RuntimeConfiguration(), logger: LogCapture().logger)
        defer { runtime.shutdown() }
        let answer = try runtime.makeDispatcher().answer("session.request", #"{"context":"music","type":"gain","\#(flag)":\#(value)}"#)
        #expect(answer["error"]?["message"]?.stringValue == "Invalid params: \"\(flag)\" must be true or false")
        #expect(runtime.session.arbiter.holders.isEmpty)
        let null = try runtime.makeDispatcher().answer("session.request", #"{"context":"music","type":"gain","\#(flag)":null}"#)
        #expect(null["result"]?["result"] == "granted", "null is the default")
    }
}
