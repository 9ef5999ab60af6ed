import Foundation
import LightWork

/// `lightwork filters [--json]`: every filter, its range and meaning, from the filters' own descriptors.
enum FiltersCommand {
    static let specs: [OptionSpec] = [
        OptionSpec(name: "json", value: nil, help: "print the table as Profiles/filters.json holds it"),
        OptionSpec(name: "help", value: nil, help: "this text", short: "h"),
    ]

    static let help = """
    Usage: lightwork filters [--json]

    Lists every filter of the chain in order with its range: UI -100 maps to minValue, UI 0 to the
    default, UI +100 to maxValue, each half linearly (the original app's dual-zone slider). A half shown
    as n/a would do nothing and is refused (grain cannot go below 0). Use the names in recipes and with
    --set NAME=UI.

    Options:
    \(CommandLineParser.help(specs))
    """

    static func run(_ args: [String]) -> Int32 {
        if args.contains("-h") || args.contains("--help") {
            print(help)
            return 0
        }
        if let unknown = args.first(where: { $0 != "--json" }) {
            FileHandle.standardError.write(Data("lightwork filters: unknown argument \(unknown) (see --help)\n".utf8))
            return 2
        }
        let table = FilterRanges.standard
        print(args.contains("--json") ? table.json() : table.listing(), terminator: "")
        return 0
    }
}
