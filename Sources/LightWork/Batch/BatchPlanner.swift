import Foundation

/// How a batch picks its inputs and names its outputs (`--include`, `--exclude`, `--min-rating`, `--label`, `--prefer`,
/// `--name`, `--on-exist`), plus what the names are made of.
public struct PlanRules: Sendable {
    public var filter: InputFilter
    /// `--min-rating` / `--label`: inputs taken by their XMP sidecar (empty: all).
    public var selection = try! InputSelection()
    public var prefer: PairPreference
    public var name: OutputNameTemplate
    public var onExist: CollisionPolicy
    /// The output format's extension ("tif", "jpg", "png"), always appended.
    public var outputExtension: String
    /// The film's (or LUT's) name for `{film}`; nil: "none".
    public var filmName: String?
    /// The recipe's name for `{recipe}`; nil: "none".
    public var recipeName: String?

    public init(filter: InputFilter = try! InputFilter(), prefer: PairPreference = .raw, name: OutputNameTemplate = .standard,
                onExist: CollisionPolicy = .skip, outputExtension: String, filmName: String? = nil, recipeName: String? = nil) {
        self.filter = filter
        self.prefer = prefer
        self.name = name
        self.onExist = onExist
        self.outputExtension = outputExtension
        self.filmName = filmName
        self.recipeName = recipeName
    }
}

/// The whole batch, decided before any file is touched.
public struct BatchPlan: Sendable, Equatable {
    /// Every input the batch describes, in input order (globs' rejects are not inputs).
    public var jobs: [PlannedJob]
    /// Files found but dropped by `--include`/`--exclude`.
    public var excluded: Int
    /// Files `--include`/`--exclude` kept but `--min-rating`/`--label` did not take, with why (in input order).
    public var filteredOut: [FilteredInput] = []

    /// An input the selection did not take.
    public struct FilteredInput: Sendable, Equatable {
        public var path: String
        public var reason: String
    }
}

/// Turns command-line paths into a plan: walk → include/exclude globs → RAW+JPEG pairs → output names →
/// collisions. Every output name is known before the first conversion, so the batch runner (serial or
/// parallel, local or one shard of many) only executes the plan, and names do not depend on the order in
/// which files finish.
///
/// Shards should be cut from the plan (not from the inputs before planning), so that `{index}` and any
/// suffix are the same as in a single run.
public enum BatchPlanner {
    static let jpegExtensions = Set(JPEGCodec.extensions)

    /// Walks `paths` and plans them. `previous` is the manifest an earlier run left at the same place: outputs it
    /// records are this export's own (see `CollisionPolicy`).
    /// `intents` (output path → input) are outputs an interrupted run announced before writing them (`OutputIntents`):
    /// also this export's own.
    public static func plan(paths: [String], rules: PlanRules, outputDirectory: URL, previous: Manifest? = nil,
                            intents: [String: String] = [:]) -> BatchPlan {
        plan(paths: paths, rules: rules, outputDirectory: outputDirectory, previous: previous.map { [$0] } ?? [], intents: intents)
    }

    /// Walks `paths` and plans them; `previous` are the manifests earlier runs left in the output folder (this run's
    /// own first, then other shard splits' or a whole run's): outputs any of them records are this export's own,
    /// and so are the `intents` interrupted runs announced before writing them (`OutputIntents.all`). A file at a
    /// planned name that neither claims is someone else's, however recent: never overwritten under `--on-exist skip`.
    public static func plan(paths: [String], rules: PlanRules, outputDirectory: URL, previous: [Manifest],
                            intents: [String: String] = [:]) -> BatchPlan {
        var owners: [String: String] = [:]
        for m in previous { owners.merge(outputOwners(m)) { earlier, _ in earlier } }
        return plan(paths: paths, rules: rules, outputDirectory: outputDirectory, owners: owners, intents: intents)
    }

    /// Walks `paths` and plans them; `owners` (output path → input relative path) are the outputs earlier runs into the
    /// folder recorded (its ledger's, `FolderHistory.owners`), `intents` those interrupted runs announced: both are this
    /// export's own. A file at a planned name that neither claims is someone else's: never overwritten under `--on-exist skip`.
    public static func plan(paths: [String], rules: PlanRules, outputDirectory: URL, owners recorded: [String: String],
                            intents: [String: String] = [:]) -> BatchPlan {
        plan(paths: paths, rules: rules, outputDirectory: outputDirectory, owner: { recorded[$0] }, intents: intents)
    }

    /// Walks `paths` and plans them; `owner` gives the input (relative path) whose earlier run into the folder recorded
    /// an output path (a lookup in its ledgers, `FolderHistory.owner(ofOutput:)`), `intents` the outputs interrupted
    /// runs announced: both are this export's own. A file at a planned name that neither claims is someone else's:
    /// never overwritten under `--on-exist skip`.
    public static func plan(paths: [String], rules: PlanRules, outputDirectory: URL, owner recorded: @escaping (String) -> String?,
                            intents: [String: String] = [:]) -> BatchPlan {
        let storage = MemoryPlanStorage()
        let (excluded, filteredOut) = build(into: storage, paths: paths, rules: rules, outputDirectory: outputDirectory, owner: recorded, intents: intents)
        return BatchPlan(jobs: storage.jobs, excluded: excluded, filteredOut: filteredOut)
    }

    /// Walks `paths` into `storage` and plans them (see `plan(paths:rules:outputDirectory:owner:intents:)`).
    private static func build(into storage: PlanStorage, paths: [String], rules: PlanRules, outputDirectory: URL,
                              owner recorded: @escaping (String) -> String?, intents: [String: String])
        -> (excluded: Int, filteredOut: [BatchPlan.FilteredInput]) {
        let owner = { (path: String) in recorded(path) ?? intents[path] }
        // The output folder is never an input: the walk leaves it out wherever it sits in the tree (or else a
        // second `convert shoot -o shoot/exports` converts the first one's exports again, film applied twice).
        let excluded = ExcludedFolders([outputDirectory])
        var seen: [String: Bool] = [:]
        return build(into: storage, items: { each in InputWalker.forEach(paths, excluding: excluded, each) }, rules: rules, owner: owner,
                     firstIndex: 1, indexWidth: nil, refuse: { item in
            // A file named on the command line (or a symlink) that lies there fails rather than being skipped: the
            // user asked for it, so a silent skip with exit 0 would say it was done.
            excluded.encloses(item.url.path, cache: &seen) ? insideOutputReason(outputDirectory) : nil
        }, exists: { relative in
            var st = stat()
            return lstat(outputDirectory.appendingPathComponent(relative).path, &st) == 0
        })
    }

    /// Why an input inside the output folder is refused.
    static func insideOutputReason(_ outputDirectory: URL) -> String {
        "it lies inside the output folder \(outputDirectory.path), and LightWork never takes its own outputs as inputs "
            + "(copy it elsewhere, or choose another -o)"
    }

    /// The first of `paths` that is a folder lying inside `outputDirectory` (or that folder itself, by device and
    /// inode): a batch over it would only see outputs, so the command refuses it up front. Nil when none.
    public static func inputFolderInsideOutput(_ paths: [String], outputDirectory: URL) -> String? {
        let excluded = ExcludedFolders([outputDirectory])
        var seen: [String: Bool] = [:]
        return paths.first { path in
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue && excluded.encloses(path, cache: &seen)
        }
    }

    /// Plans `items` (in the walker's order). `owners` maps output paths an earlier run wrote to the input
    /// (relative path) they came from; `exists` says whether an output path is taken on disk;
    /// `{index}` counts from `firstIndex`, zero-padded to `indexWidth` (default: the width of the count); a folder
    /// watch plans one file at a time with its running number. `refuse` gives the reason an input is not taken at all
    /// (it fails, kind `usage`, and gets no name or index).
    public static func plan(items: [InputItem], rules: PlanRules, owners: [String: String] = [:], firstIndex: Int = 1, indexWidth: Int? = nil,
                            refuse: (InputItem) -> String? = { _ in nil }, exists: @escaping (String) -> Bool) -> BatchPlan {
        plan(items: items, rules: rules, owner: { owners[$0] }, firstIndex: firstIndex, indexWidth: indexWidth, refuse: refuse, exists: exists)
    }

    /// `plan(items:owners:…)` with the owners as a lookup (`owner`: output path → the input relative path that wrote it).
    public static func plan(items: [InputItem], rules: PlanRules, owner: @escaping (String) -> String?, firstIndex: Int = 1, indexWidth: Int? = nil,
                            refuse: (InputItem) -> String? = { _ in nil }, exists: @escaping (String) -> Bool) -> BatchPlan {
        let storage = MemoryPlanStorage()
        let (excluded, filteredOut) = build(into: storage, items: { each in items.forEach(each) }, rules: rules, owner: owner,
                                            firstIndex: firstIndex, indexWidth: indexWidth, refuse: refuse, exists: exists)
        return BatchPlan(jobs: storage.jobs, excluded: excluded, filteredOut: filteredOut)
    }

    /// Walks `paths` and plans them as `plan(paths:rules:outputDirectory:owner:intents:)` does, into a `StoredPlan`:
    /// the inputs, their jobs and the names they claim are kept in a private temporary SQLite database, not in
    /// memory, so a 100,000-file batch costs the parent the memory of a 1,000-file one. The same jobs, in the same
    /// order and with the same names, as the in-memory plan. Throws when the temporary database fails.
    public static func store(paths: [String], rules: PlanRules, outputDirectory: URL, owner recorded: @escaping (String) -> String?,
                             intents: [String: String] = [:]) throws(LightWorkError) -> StoredPlan {
        let storage = try SQLitePlanStorage()
        let (excluded, filteredOut) = build(into: storage, paths: paths, rules: rules, outputDirectory: outputDirectory, owner: recorded, intents: intents)
        if let failure = storage.failure { throw failure }
        return StoredPlan(storage: storage, excluded: excluded, filteredOut: filteredOut)
    }

    /// Inputs whose capture metadata (`{date}`, `{camera}`) is read at a time, in parallel, while names are given.
    static let probeChunk = 256

    /// The one planning algorithm, whatever keeps the jobs: `items` yields the walker's items in order; returns the
    /// number dropped by the globs and those the selection did not take.
    static func build(into storage: PlanStorage, items: ((InputItem) -> Void) -> Void, rules: PlanRules, owner: @escaping (String) -> String?,
                      firstIndex: Int, indexWidth: Int?, refuse: (InputItem) -> String?, exists: @escaping (String) -> Bool)
        -> (excluded: Int, filteredOut: [BatchPlan.FilteredInput]) {
        var filteredOut: [BatchPlan.FilteredInput] = []
        var excluded = 0
        withoutActuallyEscaping(refuse) { refuse in
            items { item in
                guard rules.filter.accepts(relativePath: item.relativePath) else { excluded += 1; return }
                if let reason = refuse(item) { storage.append(PlannedJob(item: item, action: .fail(reason: reason, kind: .usage)), pair: nil); return }
                switch rules.selection.verdict(for: item.url) {
                case .take: storage.append(PlannedJob(item: item, action: .convert(output: "")), pair: pairMember(item))
                case .filteredOut(let why): filteredOut.append(BatchPlan.FilteredInput(path: item.displayPath, reason: why))
                case .fail(let error): storage.append(PlannedJob(item: item, action: .fail(reason: error.description, kind: error.kind)), pair: nil)
                }
            }
        }
        let pairedJPEG = pairs(storage, prefer: rules.prefer)

        // Names for the files that are converted; {index} counts only those.
        var converting = 0
        for i in 0..<storage.count where storage.job(at: i).outputPath != nil { converting += 1 }
        let width = indexWidth ?? String(converting).count
        let film = rules.filmName.map { FileNameSafety.slug($0, fallback: "none") } ?? "none"
        let recipe = rules.recipeName.map { FileNameSafety.slug($0, fallback: "none") } ?? "none"
        let claims = Claims(owner: owner, exists: exists, storage: storage)
        var n = 0
        var chunk: [(position: Int, job: PlannedJob)] = []
        func name(_ chunk: [(position: Int, job: PlannedJob)]) {
            guard !chunk.isEmpty else { return }
            let captured = rules.name.needsMetadata ? probe(chunk.map { $0.job.item.url }) : []
            for (k, (i, job)) in chunk.enumerated() {
                let item = job.item
                let file = (item.relativePath as NSString).lastPathComponent
                let ext = (file as NSString).pathExtension
                var values = OutputNameTemplate.Values(stem: FileNameSafety.sanitized((file as NSString).deletingPathExtension),
                                                       ext: FileNameSafety.sanitized(ext), film: film, index: pad(firstIndex + n, width), recipe: recipe)
                n += 1
                if let m = captured.isEmpty ? nil : captured[k] {
                    values.date = CaptureInfoProbe.isoDate(m.dateTimeOriginal) ?? "nodate"
                    values.camera = FileNameSafety.cameraSlug(make: m.make, model: m.model, fallback: "nocamera")
                }
                var name = rules.name.name(values)
                if pairedJPEG.contains(i) && !rules.name.tokens.contains(.ext) { name += "-" + values.ext.lowercased() }
                // The template's own subfolders go below the mirrored input folder; the last segment is the file.
                var segments = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                let fileName = segments.removeLast()
                if let problem = (segments + [fileName]).lazy.compactMap({ FileNameSafety.problem(with: $0) }).first
                    ?? FileNameSafety.problem(with: fileName + "-99." + rules.outputExtension) {
                    var refused = job
                    refused.action = .fail(reason: "\(problem) (--name '\(rules.name)')")
                    storage.replace(refused, at: i)
                    continue
                }
                let dir = ((item.relativePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(segments.joined(separator: "/"))
                let folder = dir.isEmpty ? "" : dir + "/"
                storage.replace(claims.resolve(job, folder: folder, name: fileName, ext: rules.outputExtension, policy: rules.onExist), at: i)
            }
        }
        for i in 0..<storage.count {
            let job = storage.job(at: i)
            guard job.outputPath != nil else { continue }
            chunk.append((i, job))
            if chunk.count == probeChunk { name(chunk); chunk.removeAll(keepingCapacity: true) }
        }
        name(chunk)
        return (excluded, filteredOut)
    }

    /// Output path → input relative path, for every output a manifest records.
    public static func outputOwners(_ manifest: Manifest) -> [String: String] {
        var out: [String: String] = [:]
        for e in manifest.entries { if let o = e.output { out[o.path] = e.input.relativePath } }
        return out
    }

    /// The RAW+JPEG pair group of an input to convert (its folder and lower-cased stem) and whether it is the RAW or the
    /// JPEG of a pair; nil for other formats, which never pair.
    static func pairMember(_ item: InputItem) -> PairMember? {
        let ext = item.url.pathExtension.lowercased()
        let isRaw = RawCodec.extensions.contains(ext)
        guard isRaw || jpegExtensions.contains(ext) else { return nil }
        let url = item.url.standardizedFileURL
        return PairMember(group: url.deletingLastPathComponent().path + "/" + url.deletingPathExtension().lastPathComponent.lowercased(),
                                      isRaw: isRaw)
    }

    /// Applies the pair preference to the jobs of `storage` (skipping the unwanted partner); returns the positions of
    /// JPEGs converted beside their RAW (`both`), whose names get their extension.
    static func pairs(_ storage: PlanStorage, prefer: PairPreference) -> Set<Int> {
        var pairedJPEG = Set<Int>()
        storage.forEachPair { raws, jpegs in
            let firstRaw = storage.job(at: raws[0]).item.url.lastPathComponent, firstJPEG = storage.job(at: jpegs[0]).item.url.lastPathComponent
            func skip(_ positions: [Int], _ reason: String) {
                for p in positions {
                    var job = storage.job(at: p)
                    job.action = .skip(reason: reason)
                    storage.replace(job, at: p)
                }
            }
            switch prefer {
            case .raw: skip(jpegs, "RAW+JPEG pair: RAW preferred (\(firstRaw) is converted; --prefer jpeg or both to change)")
            case .jpeg: skip(raws, "RAW+JPEG pair: JPEG preferred (\(firstJPEG) is converted; --prefer raw or both to change)")
            case .both: pairedJPEG.formUnion(jpegs)
            }
        }
        return pairedJPEG
    }

    /// Capture metadata for `urls`, read in parallel (header reads only), in the same order.
    static func probe(_ urls: [URL]) -> [ImageMetadata?] {
        let results = LockedBox([ImageMetadata?](repeating: nil, count: urls.count))
        Parallel.forEach(urls.count, workers: min(8, max(1, urls.count))) { _, i in
            let m = CaptureInfoProbe.read(urls[i])
            results.withLock { $0[i] = m }
        }
        return results.withLock { $0 }
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}

/// The names taken so far in one plan, and the rules that give a job a free one.
struct Claims {
    /// Output path → the input (relative path) an earlier run wrote it from.
    let owner: (String) -> String?
    let exists: (String) -> Bool
    /// Keeps lower-cased output path → the input that claimed it (case-insensitively, so outputs stay distinct
    /// when copied to macOS or Windows disks).
    let storage: PlanStorage

    init(owner: @escaping (String) -> String?, exists: @escaping (String) -> Bool, storage: PlanStorage) {
        self.owner = owner
        self.exists = exists
        self.storage = storage
    }

    /// Whether `path` is on disk and not this input's own earlier output (recorded or announced).
    func foreign(_ path: String, for item: InputItem) -> Bool {
        guard exists(path) else { return false }
        return owner(path) != item.relativePath
    }

    func resolve(_ job: PlannedJob, folder: String, name: String, ext: String, policy: CollisionPolicy) -> PlannedJob {
        var job = job
        let path = folder + name + "." + ext
        if let owner = storage.claimant(path.lowercased()) {
            guard policy == .suffix else {
                job.action = .fail(reason: "its output \(path) is also the output of \(owner), earlier in the list; use --on-exist suffix, "
                                   + "or a --name template with {ext} or {index}")
                return job
            }
            return suffixed(job, folder: folder, name: name, ext: ext, because: "\(path) is the output of \(owner)")
        }
        if foreign(path, for: job.item) {
            switch policy {
            case .skip:
                storage.claim(path.lowercased(), by: job.item.displayPath)
                job.leftAlone = path
                job.action = .skip(reason: "\(path) already exists and no earlier LightWork run wrote it from this input: left as it is "
                                   + "(--on-exist overwrite replaces it, --on-exist suffix writes beside it)")
                return job
            case .overwrite:
                job.notes.append("replaced the existing \(path) (--on-exist overwrite)")
            case .suffix:
                return suffixed(job, folder: folder, name: name, ext: ext, because: "\(path) already exists")
            }
        }
        storage.claim(path.lowercased(), by: job.item.displayPath)
        job.action = .convert(output: path)
        return job
    }

    private func suffixed(_ job: PlannedJob, folder: String, name: String, ext: String, because why: String) -> PlannedJob {
        var job = job
        var n = 2
        while true {
            let candidate = folder + name + "-\(n)." + ext
            if storage.claimant(candidate.lowercased()) == nil && !foreign(candidate, for: job.item) {
                storage.claim(candidate.lowercased(), by: job.item.displayPath)
                job.action = .convert(output: candidate)
                job.notes.append("written as \(candidate): \(why) (--on-exist suffix)")
                return job
            }
            n += 1
        }
    }
}
