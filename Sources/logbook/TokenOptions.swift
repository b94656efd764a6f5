import ArgumentParser
import Foundation

/// Where the shared bearer token comes from: a file, the `LOGBOOK_TOKEN` environment
/// variable, or `--token`. Prefer the first two: `ps` shows every process's arguments to
/// every local user.
struct TokenOptions: ParsableArguments {
    static let environmentVariable = "LOGBOOK_TOKEN"

    @Option(
        help: """
            A file holding the bearer token (its first line; surrounding spaces ignored). \
            Keep it readable by the node's user only.
            """)
    var tokenFile: String?
    @Option(
        help: """
            The bearer token itself. Visible to every local user in `ps`: prefer \
            --token-file or the LOGBOOK_TOKEN environment variable.
            """)
    var token: String?

    func validate() throws {
        let given = [tokenFile != nil, token != nil].filter { $0 }.count
        guard given <= 1 else { throw ValidationError("give --token-file or --token, not both") }
    }

    /// The token, from the first source given; throws a usage error naming what is wrong.
    func resolve() throws -> String {
        let value: String
        if let tokenFile {
            value = try Self.read(tokenFile, option: "--token-file")
        } else if let token {
            value = token
        } else if let environment = ProcessInfo.processInfo.environment[Self.environmentVariable] {
            value = environment
        } else {
            throw ValidationError(
                "give the token: --token-file FILE, \(Self.environmentVariable)=..., or --token")
        }
        guard !value.isEmpty else { throw ValidationError("the token must not be empty") }
        return value
    }

    /// The token in `file`: its first line, surrounding spaces ignored; a usage error
    /// naming `option` when it cannot be read or holds none.
    static func read(_ file: String, option: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ValidationError("\(option) \(file) cannot be read")
        }
        let firstLine =
            String(decoding: data, as: UTF8.self).split(
                separator: "\n", omittingEmptySubsequences: false
            ).first.map(String.init) ?? ""
        let value = firstLine.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty else {
            throw ValidationError("\(option) \(file) holds no token on its first line")
        }
        return value
    }
}
