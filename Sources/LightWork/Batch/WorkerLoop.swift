import CShims
import Foundation

/// The body of `lightwork worker`: reads `WorkerJob` lines on stdin, answers each with one `WorkerReply`
/// line, exits at EOF. Its stdout carries only the protocol (anything else a library prints goes to stderr).
public enum WorkerLoop {
    /// Serves jobs until stdin closes; returns the exit status.
    public static func run(converter: FileConverter) -> Int32 {
        let env = ProcessInfo.processInfo.environment
        // The parent controls the worker's life: interrupts go to the parent, which ends us by EOF or SIGKILL,
        // and the kernel kills us if the parent dies (no orphan decoding on after a kill -9).
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        if let parent = env[WorkerLaunch.parentVariable].flatMap({ pid_t($0) }), lw_batch_die_with_parent(parent) == 1 { return 1 }
        let out = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)

        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty else { continue }
            guard let job = try? WorkerLine.decode(WorkerJob.self, from: Data(line.utf8)) else {
                FileHandle.standardError.write(Data("lightwork worker: unreadable job line\n".utf8))
                return 2
            }
            let entry = BatchJob.perform(job, converter: converter)
            guard let reply = try? WorkerLine.encode(WorkerReply(index: job.index, entry: entry, maxRSSKiB: peakRSSKiB())),
                  writeAll(out, reply) else { return 1 }
        }
        return 0
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
