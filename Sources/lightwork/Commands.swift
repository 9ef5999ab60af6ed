import Foundation
import LightWork

/// One `lightwork` command: its name, a line for the top-level usage, its options and help, and what runs it.
/// Declared once here; the usage text, the dispatcher, shell completion and the man pages read `Commands.all`.
struct CommandEntry: Sendable {
    let name: String
    /// Arguments after the name in the usage line (`INPUT... -o OUTDIR`).
    let synopsis: String
    /// One line for the usage text and the man page's NAME section.
    let summary: String
    let specs: [OptionSpec]
    let help: String
    /// Words that may follow the name (`merge`, `unlock`…), for completion.
    var subcommands: [String] = []
    /// Started by LightWork itself (the batch worker): not listed, not completed, no man page.
    var hidden = false
    let run: @Sendable ([String]) -> Int32
}

enum Commands {
    static let all: [CommandEntry] = [
        CommandEntry(name: "convert", synopsis: "INPUT... -o OUTDIR", summary: "develop RAW/JPEG/PNG files into TIFF, JPEG or PNG, with a manifest",
                     specs: ConvertCommand.specs, help: ConvertCommand.help, run: ConvertCommand.run),
        CommandEntry(name: "info", synopsis: "FILE...", summary: "show what the decoder sees (camera, size, CFA, levels, white balance)",
                     specs: InfoCommand.specs, help: InfoCommand.help, run: InfoCommand.run),
        CommandEntry(name: "films", synopsis: "[unlock|sync]", summary: "the film catalog, what is unlocked, and unlocking packs",
                     specs: FilmsCommand.specs, help: FilmsCommand.help, subcommands: ["unlock", "sync"], run: FilmsCommand.run),
        CommandEntry(name: "filters", synopsis: "", summary: "every filter of the chain with its range and meaning",
                     specs: FiltersCommand.specs, help: FiltersCommand.help, run: FiltersCommand.run),
        CommandEntry(name: "manifest", synopsis: "merge M... -o OUT", summary: "join the manifests of sharded runs (convert --shard K/N)",
                     specs: ManifestCommand.specs, help: ManifestCommand.help, subcommands: ["merge"], run: ManifestCommand.run),
        CommandEntry(name: "verify", synopsis: "SUITE.json", summary: "colour regression suite: render, compare by CIEDE2000, JSON/JUnit/HTML reports",
                     specs: VerifyCommand.specs, help: VerifyCommand.help, run: VerifyCommand.run),
        CommandEntry(name: "chart", synopsis: "PHOTO", summary: "find a ColorChecker in a photograph and measure ΔE00 per patch against its published values",
                     specs: ChartCommand.specs, help: ChartCommand.help, run: ChartCommand.run),
        CommandEntry(name: "watch", synopsis: "INBOX -o OUTDIR", summary: "a hot folder: convert every complete file that arrives, exactly once",
                     specs: WatchCommand.specs, help: WatchCommand.help, run: WatchCommand.run),
        CommandEntry(name: "serve", synopsis: "OUTDIR", summary: "the studio monitor beside a watch running without --serve",
                     specs: ServeCommand.specs, help: ServeCommand.help, run: ServeCommand.run),
        CommandEntry(name: "completion", synopsis: "bash|zsh", summary: "print a shell completion script (see its --help)",
                     specs: CompletionCommand.specs, help: CompletionCommand.help, subcommands: ["bash", "zsh"], run: CompletionCommand.run),
        CommandEntry(name: "worker", synopsis: "", summary: "a batch worker process (started by convert and watch)",
                     specs: [], help: "", hidden: true, run: WorkerCommand.run),
    ]

    /// The commands a person uses.
    static var visible: [CommandEntry] { all.filter { !$0.hidden } }

    static func named(_ name: String) -> CommandEntry? { all.first { $0.name == name } }

    /// The top-level usage text.
    static var usage: String {
        let rows = visible.map { c in ("  \(c.name) \(c.synopsis)", c.summary) }
        let width = (rows.map { $0.0.count }.max() ?? 0) + 3
        let lines = rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
        return """
        LightWork \(LightWorkVersion.current): RAW development batch pipeline.

        Usage: lightwork COMMAND [options]

        Commands:
        \(lines)

        Options:
        \("  --version".padding(toLength: width, withPad: " ", startingAt: 0))LightWork's version and the linked libraries' versions
        \("  -h, --help".padding(toLength: width, withPad: " ", startingAt: 0))this text; 'lightwork COMMAND --help' explains a command

        Start with:   lightwork convert Samples/ -o out/
        """
    }
}
