/// One input and what the batch does with it, decided before any file is touched.
public struct PlannedJob: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Convert into `output`, relative to the output folder.
        case convert(output: String)
        /// Not converted, for `reason` (a RAW+JPEG partner, an existing file under `--on-exist skip`).
        case skip(reason: String)
        /// Cannot be converted, for `reason`: its name collides with an earlier input's or is not a file name
        /// (`outputNameRefused`), or the input lies inside the output folder (`usage`).
        case fail(reason: String, kind: FailureKind = .outputNameRefused)
    }

    public let item: InputItem
    public var action: Action
    /// Facts the manifest entry carries (a suffix given, a file replaced).
    public var notes: [String]
    /// The output name a file no LightWork run wrote already holds, which this skipped job leaves alone (`--on-exist skip`).
    public var leftAlone: String?

    public init(item: InputItem, action: Action, notes: [String] = []) {
        self.item = item
        self.action = action
        self.notes = notes
    }

    /// Where the output goes (relative to the output folder) when the job converts.
    public var outputPath: String? {
        if case .convert(let output) = action { return output }
        return nil
    }

    /// The manifest entry of a job that does not convert; nil for one that does (the converter makes that one).
    public var entry: Manifest.Entry? {
        let input = Manifest.Input(path: item.displayPath, relativePath: item.relativePath)
        switch action {
        case .convert: return nil
        case .skip(let reason): return Manifest.Entry(input: input, status: .skipped, reason: reason, notes: notes)
        case let .fail(reason, kind): return Manifest.Entry(input: input, status: .failed, reason: reason, failureKind: kind, notes: notes)
        }
    }
}
