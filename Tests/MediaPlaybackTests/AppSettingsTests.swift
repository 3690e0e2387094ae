@testable import MediaPlayback
import Testing

/// An app's settings read key by key: what is wrong is named and keeps its default, the rest applies.
@Suite struct AppSettingsTests {
    @Test func goodValuesApplyAndNullIsTheDefault() {
        var settings = AppSettings(json: #"{"stations": "/srv/s.json", "loudnessTarget": -20, "folders": ["/a", "/b"], "gone": null}"#,
                                   known: ["stations", "loudnessTarget", "folders", "gone"])
        #expect(settings.string("stations", meaning: "a path") == "/srv/s.json")
        #expect(settings.number("loudnessTarget", in: -40...(-5), unit: "LUFS") == -20)
        #expect(settings.strings("folders", meaning: "paths") == ["/a", "/b"])
        #expect(settings.string("gone", meaning: "a path") == nil)
        #expect(settings.string("absent", meaning: "a path") == nil)
        #expect(settings.problems.isEmpty)
    }

    @Test func aWrongValueIsNamedAndOnlyItsKeyKeepsItsDefault() {
        var settings = AppSettings(json: #"{"stations": 5, "loudnessTarget": -3, "folders": "/a", "station": "x", "limit": -20}"#,
                                   known: ["stations", "loudnessTarget", "folders", "limit"])
        #expect(settings.string("stations", meaning: "the station list's path") == nil)
        #expect(settings.number("loudnessTarget", in: -40...(-5), unit: "LUFS") == nil)
        #expect(settings.strings("folders", meaning: "a list of folder paths") == nil)
        #expect(settings.number("limit", in: -40...(-5), unit: "LUFS") == -20, "the good key still applies")
        #expect(settings.problems == [
            #"unknown setting "station" (known: stations, loudnessTarget, folders, limit)"#,
            #""stations" must be the station list's path; its default applies"#,
            #""loudnessTarget" must be a number from -40.0 to -5.0 LUFS; its default applies"#,
            #""folders" must be a list of folder paths; its default applies"#,
        ])
    }

    @Test func settingsThatAreNotAnObjectAreOneProblem() {
        let settings = AppSettings(json: "[1]", known: ["stations"])
        #expect(settings.problems == ["the settings are not a JSON object; every setting keeps its default"])
    }
}
