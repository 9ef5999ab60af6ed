import Foundation
import LightWork

/// The `lightwork` command: a thin front over the LightWork library, one file per command.
let usage = """
LightWork \(LightWorkVersion.current): RAW development batch pipeline.

Usage: lightwork COMMAND [options]

Commands:
  convert INPUT... -o OUTDIR   develop RAW/JPEG/PNG files into TIFF, JPEG or PNG, with a manifest
  info FILE...                 show what the decoder sees (camera, size, CFA, levels, white balance)
  films [unlock|sync]          the film catalog, what is unlocked, and unlocking packs
  filters                      every filter of the chain with its range and meaning
  manifest merge M... -o OUT   join the manifests of sharded runs (convert --shard K/N)
  verify SUITE.json            colour regression suite: render, compare by CIEDE2000, JSON/JUnit/HTML reports
  watch INBOX -o OUTDIR        a hot folder: convert every complete file that arrives, exactly once

Options:
  --version                    LightWork's version and the linked libraries' versions
  -h, --help                   this text; 'lightwork COMMAND --help' explains a command

Start with:   lightwork convert Samples/ -o out/
"""

var arguments = Array(CommandLine.arguments.dropFirst())
// No command is a usage error: the usage goes to stderr and the status is 2, so a script missing its arguments stops.
if arguments.isEmpty {
    FileHandle.standardError.write(Data("\(usage)\n".utf8))
    exit(2)
}
let command = arguments.removeFirst()
let status: Int32
switch command {
case "convert": status = ConvertCommand.run(arguments)
case "info": status = InfoCommand.run(arguments)
case "films": status = FilmsCommand.run(arguments)
case "filters": status = FiltersCommand.run(arguments)
case "manifest": status = ManifestCommand.run(arguments)
case "verify": status = VerifyCommand.run(arguments)
case "watch": status = WatchCommand.run(arguments)
case "worker": status = WorkerCommand.run(arguments)   // hidden: started by convert
case "--version", "version":
    print("lightwork \(LightWorkVersion.current)")
    for (name, version) in LightWorkVersion.libraries.sorted(by: { $0.key < $1.key }) { print("  \(name) \(version)") }
    status = 0
case "-h", "--help", "help":
    print(usage)
    status = 0
default:
    FileHandle.standardError.write(Data("lightwork: unknown command '\(command)'\n\n\(usage)\n".utf8))
    status = 2
}
exit(status)
