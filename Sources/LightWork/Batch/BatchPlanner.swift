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
        let owner = { (path: String) in recorded(path) ?? intents[path] }
        // The output folder is never an input: the walk leaves it out wherever it sits in the tree (or else a
        // second `convert shoot -o shoot/exports` converts the first one's exports again, film applied twice).
        let excluded = ExcludedFolders([outputDirectory])
        var seen: [String: Bool] = [:]
        return plan(items: InputWalker.items(for: paths, excluding: excluded), rules: rules, owner: owner, refuse: { item in
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
        let kept = items.filter { rules.filter.accepts(relativePath: $0.relativePath) }
        var filteredOut: [BatchPlan.FilteredInput] = []
        var jobs: [PlannedJob] = []
        for item in kept {
            if let reason = refuse(item) { jobs.append(PlannedJob(item: item, action: .fail(reason: reason, kind: .usage))); continue }
            switch rules.selection.verdict(for: item.url) {
            case .take: jobs.append(PlannedJob(item: item, action: .convert(output: "")))
            case .filteredOut(let why): filteredOut.append(BatchPlan.FilteredInput(path: item.displayPath, reason: why))
            case .fail(let error): jobs.append(PlannedJob(item: item, action: .fail(reason: error.description, kind: error.kind)))
            }
        }
        let pairedJPEG = pairs(&jobs, prefer: rules.prefer)

        // Names for the files that are converted; {index} counts only those.
        let converting = jobs.indices.filter { jobs[$0].outputPath != nil }
        let width = indexWidth ?? String(converting.count).count
        let captured = rules.name.needsMetadata ? probe(converting.map { jobs[$0].item.url }) : []
        let film = rules.filmName.map { FileNameSafety.slug($0, fallback: "none") } ?? "none"
        let recipe = rules.recipeName.map { FileNameSafety.slug($0, fallback: "none") } ?? "none"
        var claims = Claims(owner: owner, exists: exists)
        for (n, i) in converting.enumerated() {
            let item = jobs[i].item
            let file = (item.relativePath as NSString).lastPathComponent
            let ext = (file as NSString).pathExtension
            var values = OutputNameTemplate.Values(stem: FileNameSafety.sanitized((file as NSString).deletingPathExtension),
                                                   ext: FileNameSafety.sanitized(ext), film: film, index: pad(firstIndex + n, width), recipe: recipe)
            if let m = captured.isEmpty ? nil : captured[n] {
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
                jobs[i].action = .fail(reason: "\(problem) (--name '\(rules.name)')")
                continue
            }
            let dir = ((item.relativePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(segments.joined(separator: "/"))
            let folder = dir.isEmpty ? "" : dir + "/"
            name = fileName
            jobs[i] = claims.resolve(jobs[i], folder: folder, name: name, ext: rules.outputExtension, policy: rules.onExist)
        }
        return BatchPlan(jobs: jobs, excluded: items.count - kept.count, filteredOut: filteredOut)
    }

    /// Output path → input relative path, for every output a manifest records.
    public static func outputOwners(_ manifest: Manifest) -> [String: String] {
        var out: [String: String] = [:]
        for e in manifest.entries { if let o = e.output { out[o.path] = e.input.relativePath } }
        return out
    }

    /// Applies the pair preference to `jobs` (skipping the unwanted partner); returns the indices of JPEGs
    /// converted beside their RAW (`both`), whose names get their extension.
    static func pairs(_ jobs: inout [PlannedJob], prefer: PairPreference) -> Set<Int> {
        struct Key: Hashable { let folder: String; let stem: String }
        var groups: [Key: [Int]] = [:]
        var order: [Key] = []
        for (i, job) in jobs.enumerated() where job.outputPath != nil {
            let url = job.item.url.standardizedFileURL
            let key = Key(folder: url.deletingLastPathComponent().path, stem: url.deletingPathExtension().lastPathComponent.lowercased())
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(i)
        }
        var pairedJPEG = Set<Int>()
        for key in order {
            let members = groups[key]!
            let raws = members.filter { RawCodec.extensions.contains(jobs[$0].item.url.pathExtension.lowercased()) }
            let jpegs = members.filter { jpegExtensions.contains(jobs[$0].item.url.pathExtension.lowercased()) }
            guard !raws.isEmpty, !jpegs.isEmpty else { continue }
            let firstRaw = jobs[raws[0]].item.url.lastPathComponent, firstJPEG = jobs[jpegs[0]].item.url.lastPathComponent
            switch prefer {
            case .raw:
                for j in jpegs { jobs[j].action = .skip(reason: "RAW+JPEG pair: RAW preferred (\(firstRaw) is converted; --prefer jpeg or both to change)") }
            case .jpeg:
                for r in raws { jobs[r].action = .skip(reason: "RAW+JPEG pair: JPEG preferred (\(firstJPEG) is converted; --prefer raw or both to change)") }
            case .both:
                pairedJPEG.formUnion(jpegs)
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
    /// Lower-cased output path → the input that claimed it (case-insensitively, so outputs stay distinct
    /// when copied to macOS or Windows disks).
    private var claimed: [String: String] = [:]

    init(owner: @escaping (String) -> String?, exists: @escaping (String) -> Bool) {
        self.owner = owner
        self.exists = exists
    }

    /// Whether `path` is on disk and not this input's own earlier output (recorded or announced).
    func foreign(_ path: String, for item: InputItem) -> Bool {
        guard exists(path) else { return false }
        return owner(path) != item.relativePath
    }

    mutating func resolve(_ job: PlannedJob, folder: String, name: String, ext: String, policy: CollisionPolicy) -> PlannedJob {
        var job = job
        let path = folder + name + "." + ext
        if let owner = claimed[path.lowercased()] {
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
                claimed[path.lowercased()] = job.item.displayPath
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
        claimed[path.lowercased()] = job.item.displayPath
        job.action = .convert(output: path)
        return job
    }

    private mutating func suffixed(_ job: PlannedJob, folder: String, name: String, ext: String, because why: String) -> PlannedJob {
        var job = job
        var n = 2
        while true {
            let candidate = folder + name + "-\(n)." + ext
            if claimed[candidate.lowercased()] == nil && !foreign(candidate, for: job.item) {
                claimed[candidate.lowercased()] = job.item.displayPath
                job.action = .convert(output: candidate)
                job.notes.append("written as \(candidate): \(why) (--on-exist suffix)")
                return job
            }
            n += 1
        }
    }
}
