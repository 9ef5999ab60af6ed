import CShims
import Foundation

/// The body of `lightwork worker`: reads the `WorkerStart` line on stdin, then `WorkerJob` lines, answers each
/// job with one `WorkerReply` line, exits at EOF. Its stdout carries only the protocol (anything else a library prints goes to stderr).
public enum WorkerLoop {
    /// Signals a worker ignores: SIGINT and SIGTERM (the parent finishes or abandons files in flight) and SIGHUP (a
    /// watch's reload, which may reach the workers too when sent to every lightwork process).
    public static let ignoredSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Serves jobs until stdin closes; returns the exit status.
    public static func run() -> Int32 {
        let env = ProcessInfo.processInfo.environment
        // The parent controls the worker's life: interrupts and reloads go to the parent, which ends us by EOF or
        // SIGKILL, and the kernel kills us if the parent dies (no orphan decoding on after a kill -9). The parent
        // spawned us with these blocked; ignoring them discards any that arrived meanwhile, then they are unblocked.
        var ignored = sigset_t()
        sigemptyset(&ignored)
        for s in ignoredSignals {
            signal(s, SIG_IGN)
            sigaddset(&ignored, s)
        }
        pthread_sigmask(SIG_UNBLOCK, &ignored, nil)
        if let parent = env[WorkerLaunch.parentVariable].flatMap({ pid_t($0) }), lw_batch_die_with_parent(parent) == 1 { return 1 }
        let out = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        // EOF before any line: a reserve worker (WorkerReserve) the run did not need; nothing to do.
        guard let first = readLine(strippingNewline: true) else { return 0 }
        guard let start = try? WorkerLine.decode(WorkerStart.self, from: Data(first.utf8)) else {
            FileHandle.standardError.write(Data("lightwork worker: the first line is not a start message\n".utf8))
            return 2
        }
        let converter = prepare(start)

        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty else { continue }
            guard let job = try? WorkerLine.decode(WorkerJob.self, from: Data(line.utf8)) else {
                FileHandle.standardError.write(Data("lightwork worker: unreadable job line\n".utf8))
                return 2
            }
            let entry: Manifest.Entry
            switch converter {
            case .success(let converter): entry = BatchJob.perform(job, converter: converter)
            case .failure(let error): entry = failed(job, error)
            }
            guard let reply = try? WorkerLine.encode(WorkerReply(index: job.index, entry: entry, maxRSSKiB: peakRSSKiB())),
                  writeAll(out, reply) else { return 1 }
        }
        return 0
    }

    /// Applies the start message's limits (the memory limit first, so that loading the LUT is under it too) and
    /// makes the converter. A spec that cannot be converted to (its LUT changed since the parent checked it)
    /// fails every job with that reason rather than ending the worker, which the parent would call a crash.
    static func prepare(_ start: WorkerStart) -> Result<FileConverter, LightWorkError> {
        if let bytes = start.limits.memoryLimit, !limitAddressSpace(bytes: bytes) {
            FileHandle.standardError.write(Data("lightwork worker: cannot set the memory limit (\(String(cString: strerror(errno))))\n".utf8))
        }
        // The parent gives each worker its share of the cores: the demosaic (OpenMP) uses the same share.
        let engine = start.limits.threads.map { EngineConfiguration(threads: $0) } ?? .detected
        do {
            return .success(try FileConverter(spec: start.spec, engine: engine, memoryLimit: start.limits.memoryLimit))
        } catch let error as LightWorkError {
            return .failure(error)
        } catch {
            return .failure(.decodeFailed(FileConverter.describe(error)))
        }
    }

    /// `job`'s entry when no converter could be made.
    static func failed(_ job: WorkerJob, _ error: LightWorkError) -> Manifest.Entry {
        var entry = Manifest.Entry(input: Manifest.Input(path: job.displayPath, relativePath: job.relativePath), status: .failed,
                                   reason: error.description, failureKind: error.kind)
        entry.input.index = job.index
        entry.notes = job.notes
        return entry
    }

    /// Caps this process's address space (RLIMIT_AS) at `bytes`: past it, allocations fail, so a file whose
    /// decoder runs away (a crafted size, a decompression bomb the header did not reveal) fails in this worker
    /// instead of growing until the machine swaps or the OOM killer picks a victim. Returns false when refused.
    @discardableResult
    public static func limitAddressSpace(bytes: Int) -> Bool {
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        return setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0
    }

    /// This process's peak resident set size in KiB.
    public static func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Int(usage.ru_maxrss)
    }

    private static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var p = raw.baseAddress!
            var left = raw.count
            while left > 0 {
                let n = write(fd, p, left)
                if n < 0 { if errno == EINTR { continue }; return false }
                p += n
                left -= n
            }
            return true
        }
    }
}
