import Foundation
import LightWork

/// `lightwork filters`: every filter, its range and meaning, from Profiles/filters.json.
enum FiltersCommand {
    static func run(_ args: [String]) -> Int32 {
        if args.contains("-h") || args.contains("--help") {
            print("""
            Usage: lightwork filters

            Lists every filter of the chain in order with its range: UI -100 maps to minValue, UI 0 to the
            default, UI +100 to maxValue, each half linearly (the original app's dual-zone slider). Use the
            names in recipes and with --set NAME=UI.
            """)
            return 0
        }
        do {
            print(try FilterRanges.bundled(profiles: try ProfilesDirectory.locate()).listing(), terminator: "")
            return 0
        } catch {
            FileHandle.standardError.write(Data("lightwork filters: \(error)\n".utf8))
            return 1
        }
    }
}
