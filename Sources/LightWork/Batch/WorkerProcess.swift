import CShims
import Foundation

/// How to start a worker: `executable arguments…` (normally `lightwork worker`), with `environment` laid
/// over the parent's, and the limits its `WorkerStart` message gives it (the spec comes from the converter
/// the pool serves, so a watch's reload reaches new workers with the new spec).
public struct WorkerLaunch: Sendable {
    public var executable: String
    public var arguments: [String]
    public var environment: [String: String]
    /// Each worker's threads and memory (sent in its start message).
    public var limits = WorkerLimits()

    public init(executable: String, arguments: [String] = ["worker"], environment: [String: String] = [:]) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
    }

    /// The first message a worker converting to `spec` is sent.
    public func start(_ spec: ConvertSpec) -> WorkerStart { WorkerStart(spec: spec, limits: limits) }

    /// Whether a process started for `other` is one started for this launch: the same program, arguments and
    /// environment (the limits travel in the start message, so they may differ).
    public func startsSameProcess(as other: WorkerLaunch) -> Bool {
        executable == other.executable && arguments == other.arguments && environment == other.environment
    }

    /// The environment variable through which a worker learns its parent's pid (for the parent-death signal).
    public static let parentVariable = "LIGHTWORK_WORKER_PARENT"

    /// The `GLIBC_TUNABLES` a conversion worker runs with: freed image buffers stay in its heap instead of being
    /// unmapped, so the next file reuses mapped pages rather than faulting in and zeroing ~600 MB again (measured:
    /// system time per 24 MP file 0.6 s → 0.3 s). `make bench`'s develop figures run under the same setting.
    public static let allocatorTunables = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967295"
}

/// How a worker process ended.
enum WorkerTermination: Equatable {
    case exited(Int32)
    case signaled(Int32)

    init(waitStatus s: Int32) {
        // WIFEXITED / WTERMSIG are macros Swift cannot import.
        let low = s & 0x7f
        self = low == 0 ? .exited((s >> 8) & 0xff) : .signaled(low)
    }
}

/// One child process serving jobs over pipes: the parent writes the `WorkerStart` line, then `WorkerJob` lines to its stdin and reads
/// `WorkerReply` lines from its stdout. Pipes are close-on-exec in the parent, so no worker holds another's
/// ends; workers run in their own process group, so a terminal's Ctrl-C reaches only the parent.
final class WorkerProcess {
    let pid: pid_t
    private var input: Int32
    /// Read end of the worker's stdout (non-blocking; poll it).
    let output: Int32
    private var buffer: [UInt8] = []
    private(set) var atEnd = false

    /// The job in flight, when it was sent and the memory it was budgeted.
    var job: WorkerJob?
    var jobStarted = DispatchTime.now()
    var jobEstimate = 0
    var filesDone = 0
    var maxRSSKiB = 0

    /// Starts the process and sends it `start`, its first line.
    convenience init(launch: WorkerLaunch, start: WorkerStart) throws {
        try self.init(spawning: launch)
        try begin(start)
    }

    /// Starts the process only: it loads and then waits for its start message (`begin`), or exits quietly at EOF.
    init(spawning launch: WorkerLaunch) throws {
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard lw_batch_pipe(&toChild, O_CLOEXEC) == 0 else { throw WorkerProcess.failure("pipe") }
        guard lw_batch_pipe(&fromChild, O_CLOEXEC) == 0 else {
            close(toChild[0]); close(toChild[1])
            throw WorkerProcess.failure("pipe")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // The signals a worker ignores (`WorkerLoop.ignoredSignals`) start blocked, so one sent to every lightwork
        // process (`kill -HUP $(pidof lightwork)`) while a worker is still loading cannot end it before it ignores them.
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in WorkerLoop.ignoredSignals { sigaddset(&mask, s) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var env = ProcessInfo.processInfo.environment
        for (k, v) in launch.environment { env[k] = v }
        env[WorkerLaunch.parentVariable] = String(getpid())
        let argv = ([launch.executable] + launch.arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, launch.executable, &actions, &attributes, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard rc == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw LightWorkError.workerCrashed("cannot start a worker process \(launch.executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        input = toChild[1]
        output = fromChild[0]
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
    }

    /// Sends `start`, the first line; a worker that cannot be told what to do is of no use, so on failure it is
    /// reaped and the failure to start thrown.
    func begin(_ start: WorkerStart) throws {
        do { try write(WorkerLine.encode(start)) } catch {
            _ = wait()
            throw error
        }
    }

    /// Writes one whole line to the worker's stdin; throws when the worker is gone (EPIPE: SIGPIPE is ignored
    /// while a pool runs).
    private func write(_ line: Data) throws {
        let code = line.withUnsafeBytes { FullWrite.write(input, $0) }
        if code != 0 { errno = code; throw WorkerProcess.failure("write to worker") }
    }

    /// Sends one job; throws when the worker is gone.
    func send(_ job: WorkerJob) throws {
        try write(WorkerLine.encode(job))
        self.job = job
        jobStarted = DispatchTime.now()
    }

    /// Reads what the worker has written so far and returns the complete lines; sets `atEnd` at EOF.
    func readLines() -> [Data] {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(output, &chunk, chunk.count)
            if n > 0 { buffer += chunk[0..<n]; continue }
            if n == 0 { atEnd = true }
            if n < 0 && errno == EINTR { continue }
            break
        }
        var lines: [Data] = []
        while let nl = buffer.firstIndex(of: 0x0A) {
            lines.append(Data(buffer[..<nl]))
            buffer.removeSubrange(...nl)
        }
        return lines
    }

    /// Closes the worker's stdin: it exits after its current job.
    func closeInput() {
        if input >= 0 { close(input); input = -1 }
    }

    /// Ends the worker at once.
    func kill() { _ = Glibc.kill(pid, SIGKILL) }

    /// Waits for the process to end and releases its pipes.
    func wait() -> WorkerTermination {
        closeInput()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        close(output)
        return WorkerTermination(waitStatus: status)
    }

    private static func failure(_ what: String) -> LightWorkError {
        .workerCrashed("\(what) failed: \(String(cString: strerror(errno)))")
    }
}
