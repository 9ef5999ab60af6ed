import Foundation

/// What a batch does with one input, in a worker process or in the parent (`--no-isolation`): reuse the
/// previous run's output when it is provably complete and current, else convert.
public enum BatchJob {
    public static func perform(_ job: WorkerJob, converter: FileConverter) -> Manifest.Entry {
        let item = job.item
        let clock = StageClock()
        var entry: Manifest.Entry
        // Reused only where the plan names the same output (a new --name or collision decision redoes the file).
        if let previous = job.previous, previous.output?.path == job.output,
           let reused = ResumeIndex.reusableEntry(previous: previous, item: item, outputDirectory: converter.outputDirectory) {
            entry = reused
            entry.timings["total"] = clock.total()
        } else {
            entry = converter.convert(item, to: job.output, preview: job.preview.map { URL(fileURLWithPath: $0) })
            entry.notes += job.notes
        }
        entry.input.index = job.index
        return entry
    }
}
