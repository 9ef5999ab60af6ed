import Foundation

extension PlanRules {
    /// The planner's rules for outputs converted to `spec`: its naming (template, collisions, extension, the
    /// film and recipe names the template can use) and the batch's own choice of inputs.
    public init(spec: ConvertSpec, filter: InputFilter = try! InputFilter(), prefer: PairPreference = .raw) throws {
        self.init(filter: filter, prefer: prefer, name: try OutputNameTemplate(spec.output.name), onExist: spec.output.onExist,
                  outputExtension: spec.export.format.fileExtension, filmName: spec.look.lookup?.displayName,
                  recipeName: spec.look.recipeName)
    }
}
