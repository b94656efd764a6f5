import Foundation
import Testing

// `logbook hub migrate` as an operator runs it: against the test PostgreSQL it creates the
// schema once and then finds nothing to do; a URL that cannot work is refused with the reason
// and a non-zero status, quickly, with the password never printed.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"] != nil
            || ProcessInfo.processInfo.environment["CI"] == "true"))
struct HubCommandTests {
    @Test func migrateIsRepeatableAndBadURLsSayWhy() throws {
        guard LogbookExecutable.built() != nil else { return }
        let url = try #require(ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"])
        let first = try LogbookExecutable.run(["hub", "migrate", "--postgres", url])
        #expect(first.status == 0, "\(first.standardError)")
        let again = try LogbookExecutable.run(["hub", "migrate", "--postgres", url])
        #expect(again.status == 0)
        #expect(
            again.standardOutput.contains("schema already at version"), "\(again.standardOutput)")

        let refused = try LogbookExecutable.run([
            "hub", "migrate", "--postgres",
            "postgres://someone:hunter2@127.0.0.1:1/db?sslmode=disable",
        ])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("cannot connect"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("hunter2"), "the password was printed")

        let malformed = try LogbookExecutable.run(["hub", "migrate", "--postgres", "mysql://x/y"])
        #expect(malformed.status == 2)
        #expect(malformed.standardError.contains("expected postgres://"))
    }
}
