import Foundation
import LightWork

/// The `convert` flags that decide how a batch runs (jobs, isolation, memory, time limit, resume, shards),
/// as opposed to what it produces; none of them changes an output byte.
enum BatchArguments {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "jobs", value: "N", help: "files converted at once, each in a worker process (default: the number of cores)", short: "j"),
        OptionSpec(name: "max-memory", value: "SIZE", help: "memory budget for the files in flight: 8G, 512M, 40% (default 50% of RAM)"),
        OptionSpec(name: "worker-memory", value: "SIZE", help: "address space each worker may take (RLIMIT_AS): a file needing more fails alone; 8G, 2G, 0 = none (default: --max-memory, at least 4G)"),
        OptionSpec(name: "timeout", value: "SECONDS", help: "time limit per file: it fails and its worker is replaced (default 300; 0 = none)"),
        OptionSpec(name: "force", value: nil, help: "convert every input again, even those the manifest shows complete"),
        OptionSpec(name: "verify", value: nil, help: "re-read and hash every input and output an earlier run recorded before skipping it (default: an unchanged size, mtime and inode is trusted)"),
        OptionSpec(name: "wait", value: nil, help: "when another LightWork run writes into OUTDIR, wait for it to finish instead of exiting 2"),
        OptionSpec(name: "no-isolation", value: nil, help: "convert in this process, one file at a time (debugging: a decoder crash ends the run)"),
        OptionSpec(name: "shard", value: "K/N|auto", help: "convert only slice K (from 0) of N, by a hash of each input's relative path; auto reads Slurm, Kubernetes or AWS Batch array variables"),
        OptionSpec(name: "shard-count", value: "N", help: "N for --shard auto where the scheduler gives only an index (Kubernetes, AWS Batch)"),
    ]

    static let help = """
    Batches: files run in worker processes (--jobs, default one per core; each LibRaw decode is single-threaded
    and the engine gets cores/jobs threads), so a decoder crash costs only its file ("decoder crashed: signal 11
    (SIGSEGV)") and a file over --timeout is stopped. A second run of the same command skips every input whose
    output the manifest proves complete (same settings and version; input and output unchanged since: the same
    size, mtime and inode, or with --verify the same SHA-256, read again); --force redoes all. One run writes
    into an output folder at a time: a second one exits 2 naming the first, or with --wait waits for it. Ctrl-C or SIGTERM stops starting files, lets those in flight finish
    (20 s at most; interrupt again to abandon them), writes the manifest and exits 130 or 143; the next run
    completes the batch. With --shard K/N the manifest is OUTDIR/manifest.shard-K-of-N.json; join the shards'
    manifests with 'lightwork manifest merge'.
    """

    /// Takes the output folder's lock (`OutputLock`) for `command`'s whole run: held by another run, waits with
    /// --wait (saying for whom), else prints one line and gives nil (the command exits 2).
    static func lockOutput(_ p: ParsedArguments, folder: URL, shard: Shard?, command: String) -> OutputLock? {
        do {
            return try OutputLock(folder: folder, shard: shard, wait: p.has("wait")) { holder in
                if !p.has("quiet") {
                    FileHandle.standardError.write(Data("lightwork \(command): waiting for \(holder) to finish with \(folder.path)\n".utf8))
                }
            }
        } catch {
            FileHandle.standardError.write(Data("lightwork \(command): \(error)\n".utf8))
            return nil
        }
    }

    /// The batch configuration from the flags (the workers are sent the command's spec when they start).
    static func configuration(_ p: ParsedArguments) throws -> BatchConfiguration {
        var c = BatchConfiguration()
        c.handleSignals = true
        let cores = ProcessInfo.processInfo.activeProcessorCount
        c.jobs = cores
        if let j = p.value("jobs") {
            guard let n = Int(j), n >= 1 else { throw LightWorkError.usage("--jobs takes a whole number ≥ 1, not '\(j)'") }
            c.jobs = n
        }
        if let t = p.value("timeout") {
            guard let s = Double(t), s >= 0, s.isFinite else { throw LightWorkError.usage("--timeout takes seconds ≥ 0, not '\(t)'") }
            c.timeout = s == 0 ? nil : s
        }
        c.memoryBudget = try p.value("max-memory").map { try MemoryBudget.parse($0) } ?? MemoryBudget.defaultBudget()
        c.workerMemoryLimit = try workerMemory(p, budget: c.memoryBudget)
        c.force = p.has("force")
        c.verify = p.has("verify")
        if c.force && c.verify { throw LightWorkError.usage("--force and --verify exclude each other (--force converts everything again)") }
        var shardCount: Int?
        if let n = p.value("shard-count") {
            guard let v = Int(n), v >= 1 else { throw LightWorkError.usage("--shard-count takes a whole number ≥ 1, not '\(n)'") }
            shardCount = v
        }
        if let s = p.value("shard") {
            c.shard = s == "auto" ? try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount) : try Shard.parse(s)
        } else if shardCount != nil {
            throw LightWorkError.usage("--shard-count goes with --shard auto")
        }
        if p.has("no-isolation") {
            c.isolation = .inProcess
            c.jobs = 1
        } else {
            c.isolation = workers(jobs: c.jobs, p, memoryLimit: c.workerMemoryLimit)
        }
        return c
    }

    /// `--worker-memory`: a size, or 0 for none; by default the memory budget, but never under 4 GiB (address
    /// space runs well above resident memory: thread stacks, allocator arenas, mapped inputs).
    static func workerMemory(_ p: ParsedArguments, budget: MemoryBudget?) throws -> Int? {
        guard let text = p.value("worker-memory") else { return max(4 << 30, budget?.limit ?? 0) }
        if text.trimmingCharacters(in: .whitespaces) == "0" { return nil }
        if let bytes = Int(text), bytes >= 1 << 20 { return bytes }   // a plain count of bytes
        return try MemoryBudget.parse(text, flag: "--worker-memory").limit
    }

    /// Fewer files than `--jobs`: fewer workers, each with a larger share of the cores (one 24 MP file gets
    /// every core for its demosaic and its chain instead of one).
    static func fitted(_ c: BatchConfiguration, files: Int, _ p: ParsedArguments) -> BatchConfiguration {
        guard case .workers = c.isolation, files >= 1, files < c.jobs else { return c }
        var fitted = c
        fitted.jobs = files
        fitted.isolation = workers(jobs: files, p, memoryLimit: c.workerMemoryLimit)
        return fitted
    }

    /// The launch to start a worker for before planning (`WorkerReserve`): the one `fitted` will choose when every
    /// input named is a file and each is converted, else the unfitted one (a wrong guess only costs the spare's
    /// loading, which the pool then closes). Nil when files are converted in this process.
    static func reserveLaunch(_ c: BatchConfiguration, _ p: ParsedArguments) -> WorkerLaunch? {
        var isDirectory: ObjCBool = false
        let allFiles = p.positionals.allSatisfy { FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && !isDirectory.boolValue }
        guard case .workers(let launch) = fitted(c, files: allFiles ? p.positionals.count : c.jobs, p).isolation else { return nil }
        return launch
    }

    /// Each worker's decoder (OpenMP) and engine get an equal share of the cores; a user's --threads wins.
    static func workers(jobs: Int, _ p: ParsedArguments, memoryLimit: Int?) -> BatchConfiguration.Isolation {
        let share = max(1, ProcessInfo.processInfo.activeProcessorCount / max(1, jobs))
        var environment = ["OMP_NUM_THREADS": String(share), "SWIFT_BACKTRACE": "enable=no"]
        // A worker converts file after file of the same size: its freed image buffers stay in its heap
        // (`WorkerLaunch.allocatorTunables`). The peak stays within MemoryBudget's per-pixel estimate. A
        // GLIBC_TUNABLES the user set is left alone.
        if ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] == nil {
            environment["GLIBC_TUNABLES"] = WorkerLaunch.allocatorTunables
        }
        // The worker applies exactly the threads and memory limit this process decided (its start message).
        var launch = WorkerLaunch(executable: executablePath(), environment: environment)
        launch.limits = WorkerLimits(threads: p.value("threads").flatMap { Int($0) } ?? share, memoryLimit: memoryLimit)
        return .workers(launch)
    }

    /// This program's own file, for starting workers.
    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
