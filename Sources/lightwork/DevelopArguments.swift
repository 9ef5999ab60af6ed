import Foundation
import LightWork

/// The develop flags (`--wb`, `--exposure`, …): one per module of `DevelopStage`, declared by the module's
/// descriptor, so a new module is on the command line without touching this file.
enum DevelopArguments {
    static let specs: [OptionSpec] = DevelopStage.modules.map { m in
        OptionSpec(name: m.descriptor.flag, value: m.descriptor.placeholder, help: m.descriptor.help)
    }

    /// The recipe's develop settings with every flag given applied over them.
    static func settings(_ p: ParsedArguments, recipe: DevelopSettings) throws -> DevelopSettings {
        var out = recipe
        out.applyExportDefaults()
        for m in DevelopStage.modules {
            guard let v = p.value(m.descriptor.flag) else { continue }
            try out.set(m.descriptor.name, text: v)
        }
        return out
    }
}
