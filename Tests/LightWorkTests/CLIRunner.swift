import Foundation
import XCTest
@testable import LightWork

/// Runs the real `lightwork` binary (built beside the test bundle) and captures what it says.
struct CLIRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The binary of the same build configuration as the tests.
    static var binary: URL {
        let bundleDir = Bundle.main.bundleURL
        for dir in [bundleDir, bundleDir.deletingLastPathComponent()] {
            let candidate = dir.appendingPathComponent("lightwork")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("lightwork")
    }

    static func run(_ args: [String], environment: [String: String] = [:], currentDirectory: URL? = nil) throws -> Result {
        let (status, outData, errData) = try capture(binary, args, environment: environment, currentDirectory: currentDirectory)
        return Result(status: status, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs `executable` (any program: lightwork, dcraw_emu, exiftool) to its end and returns its exit status and output.
    static func capture(_ executable: URL, _ args: [String], environment: [String: String] = [:],
                        currentDirectory: URL? = nil) throws -> (status: Int32, stdout: Data, stderr: Data) {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        if let currentDirectory { p.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Drain both pipes while the process runs so neither can fill up and block it.
        let outBox = LockedBox(Data())
        let group = DispatchGroup()
        group.enter()
        let reader = out.fileHandleForReading
        DispatchQueue.global().async { let d = reader.readDataToEndOfFile(); outBox.withLock { $0 = d }; group.leave() }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let outData = outBox.withLock { $0 }
        p.waitUntilExit()
        return (p.terminationStatus, outData, errData)
    }
}

extension CLIRunner {
    /// A `lightwork` run in the background (stdout and stderr to files in `logs`), for tests that signal it.
    final class Background {
        let process: Process
        let stdoutURL: URL
        let stderrURL: URL

        init(_ args: [String], environment: [String: String] = [:], logs: URL) throws {
            process = Process()
            process.executableURL = CLIRunner.binary
            process.arguments = args
            var env = ProcessInfo.processInfo.environment
            for (k, v) in environment { env[k] = v }
            process.environment = env
            let tag = UUID().uuidString.prefix(8)
            stdoutURL = logs.appendingPathComponent("stdout-\(tag).txt")
            stderrURL = logs.appendingPathComponent("stderr-\(tag).txt")
            FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
            FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
            process.standardError = try FileHandle(forWritingTo: stderrURL)
            try process.run()
        }

        /// Sends `signal` to the lightwork process (only that process, by its id).
        func send(_ signal: Int32) { _ = kill(process.processIdentifier, signal) }

        /// Waits until the process has written `text` to stderr; false when it did not within `seconds`.
        func waitForStderr(containing text: String, seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            repeat {
                if (try? String(contentsOf: stderrURL, encoding: .utf8))?.contains(text) == true { return true }
                usleep(20_000)
            } while Date() < deadline
            return false
        }

        /// Waits for the process to end (at most `seconds`, then kills it) and returns its result.
        func finish(within seconds: Double) -> CLIRunner.Result {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { send(SIGKILL) }
            process.waitUntilExit()
            let out = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            let err = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
            return CLIRunner.Result(status: status, stdout: out, stderr: err)
        }
    }
}
