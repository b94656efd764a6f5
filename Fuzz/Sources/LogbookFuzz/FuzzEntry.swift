import Foundation

// libFuzzer's entry points; the target to run is named by the LOGBOOK_FUZZ_TARGET
// environment variable (see FuzzTargets.swift), read once. SwiftPM links an executable's
// entry point as `<Target>_main`, so that is where libFuzzer's driver is started.

nonisolated(unsafe) private var selected: FuzzTarget?

/// libFuzzer calls this once before any input: picks the target or exits 64 naming them;
/// with `LOGBOOK_FUZZ_LIST_TARGETS=1`, prints their names one a line and exits 0.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    // scripts/fuzz.sh asks for the names, so its list is the binary's, never a stale copy.
    if environment["LOGBOOK_FUZZ_LIST_TARGETS"] == "1" {
        print(FuzzTarget.all.map(\.name).joined(separator: "\n"))
        exit(0)
    }
    let name = environment["LOGBOOK_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget.all.first(where: { $0.name == name }) else {
        let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("set LOGBOOK_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(64)
    }
    selected = target
    return 0
}

/// libFuzzer calls this with each input; the selected target must not crash on it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = selected else { return 0 }
    target.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The executable's entry point (SwiftPM's name for it): hands over to libFuzzer's driver.
@_cdecl("LogbookFuzz_main")
public func fuzzMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in
        fuzzerTestOneInput(data, size)
    }
}
