@testable import DeckIsolation
import Testing

/// In a sanitizer build a host may write its reports beside the runtime's: the folder of the
/// options' `log_path`, and only an absolute one below the root.
@Suite struct SanitizerBuildTests {
    @Test(arguments: [
        ("halt_on_error=0 log_path=/src/deck/.build/tsan/reports/report", "/src/deck/.build/tsan/reports"),
        ("log_path=/tmp/r/report:detect_leaks=0", "/tmp/r"),
        ("log_path=/a/first log_path=/b/second", "/b"),
    ])
    func theReportsFolderIsTheLogPathsFolder(options: String, folder: String) {
        #expect(SanitizerBuild.logFolder(in: options) == folder)
    }

    @Test(arguments: ["halt_on_error=0", "log_path=stderr", "log_path=reports/report", "log_path=/report", ""])
    func reportsToStderrARelativePathOrTheRootGiveNoFolder(options: String) {
        #expect(SanitizerBuild.logFolder(in: options) == nil)
    }
}
