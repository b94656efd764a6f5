import ArgumentParser
import LogbookBench

/// `--json` for the commands that report: text for people by default, or one JSON
/// document (keys in docs/cli.md) for scripts. Errors go to standard error either way.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the report as one JSON document (keys listed in docs/cli.md).")
    var json = false

    func print(_ report: some CommandReport) throws {
        Swift.print(json ? try report.json : report.text)
    }
}
