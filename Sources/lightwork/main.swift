import Foundation
import LightWork

/// The `lightwork` command: a thin front over the LightWork library, one file per command (listed in `Commands`).
var arguments = Array(CommandLine.arguments.dropFirst())
// No command is a usage error: the usage goes to stderr and the status is 2, so a script missing its arguments stops.
if arguments.isEmpty {
    FileHandle.standardError.write(Data("\(Commands.usage)\n".utf8))
    exit(2)
}
let command = arguments.removeFirst()
let status: Int32
switch command {
case "--version", "version":
    print("lightwork \(LightWorkVersion.current)")
    for (name, version) in LightWorkVersion.libraries.sorted(by: { $0.key < $1.key }) { print("  \(name) \(version)") }
    status = 0
case "-h", "--help", "help":
    print(Commands.usage)
    status = 0
default:
    if let entry = Commands.named(command) {
        status = entry.run(arguments)
    } else {
        FileHandle.standardError.write(Data("lightwork: unknown command '\(command)'\n\n\(Commands.usage)\n".utf8))
        status = 2
    }
}
exit(status)
