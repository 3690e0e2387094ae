import Testing
@testable import DeckPlugins
import DeckTestSupport

@Suite struct SemanticVersionTests {
    @Test(arguments: ["0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7", "1.0.0-x.7.z.92",
                      "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0-rc-1"])
    func acceptsSemVerVersions(text: String) throws {
        let version = try #require(SemanticVersion(text))
        #expect(version.description == text)
    }

    @Test(arguments: ["1", "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.03", "1.2.3-", "1.2.3-01", "1.2.3+", "1.2.3-a..b",
                      "a.b.c", "-1.2.3", "1.2.3-é", " 1.2.3"])
    func refusesEverythingElse(text: String) {
        #expect(SemanticVersion(text) == nil)
    }

    @Test func exposesItsParts() throws {
        let version = try #require(SemanticVersion("2.5.11-rc.1+build.7"))
        #expect((version.major, version.minor, version.patch) == (2, 5, 11))
        #expect(version.prerelease == "rc.1")
        #expect(version.build == "build.7")
    }
}
