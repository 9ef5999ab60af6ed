// LightWorkFuzz: the libFuzzer entry point for LightWork's parsers (targets: Sources/LightWorkFuzzBodies/
// FuzzTarget.swift; how to run: docs/fuzzing.md).
//
// Built for real only by `make fuzz` / scripts/fuzz.sh, which passes `-DLIGHTWORK_FUZZ` with the sanitizer
// flags; libFuzzer then supplies the process's `main` and calls `LLVMFuzzerTestOneInput`. An ordinary
// `swift build` compiles the stub below instead, so the fuzzer never breaks (or slows) the normal build.
import Foundation
#if LIGHTWORK_FUZZ
import LightWorkFuzzBodies

/// The target named by `LIGHTWORK_FUZZ_TARGET` (a lazy static: libFuzzer's main never runs this file's
/// top-level code); the process exits with the list when it is missing or wrong.
enum Selected {
    static let target: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["LIGHTWORK_FUZZ_TARGET"] ?? ""
        guard let t = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("lightwork-fuzz: set LIGHTWORK_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
            exit(2)
        }
        return t
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    Selected.target.run(data)
    return 0
}
#else
/// Without the fuzzer: say how to build it. (`@main` rather than top-level code: the fuzz build compiles this
/// file as a library, where top-level code would not parse even in an inactive `#if` branch.)
@main
enum LightWorkFuzzStub {
    static func main() {
        FileHandle.standardError.write(Data("""
            lightwork-fuzz: this build has no fuzzer. Run `make fuzz` (or scripts/fuzz.sh SECONDS TARGET...), which builds
            it with libFuzzer and AddressSanitizer into .build/fuzz (see docs/fuzzing.md).

            """.utf8))
        exit(2)
    }
}
#endif
