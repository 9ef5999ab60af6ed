import Foundation
import LightWork

/// `lightwork worker` (hidden): started by `convert` and `watch`, it reads its `WorkerStart` message (the
/// conversion spec and its limits) and then the files to convert on its stdin, one at a time (see `WorkerLoop`).
/// It parses no convert options: the parent resolved them once, into the spec.
enum WorkerCommand {
    static func run(_ args: [String]) -> Int32 {
        guard args.isEmpty else {
            FileHandle.standardError.write(Data("lightwork worker: takes no arguments (it is started by convert and watch, and reads its work on stdin)\n".utf8))
            return 2
        }
        return WorkerLoop.run()
    }
}
