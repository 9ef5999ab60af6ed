import Foundation

extension ConvertOptions {
    /// Records the look and colour model in `settings` (the manifest's record, the settings digest and the grain
    /// seed): shared by convert and verify so both describe, and seed, a render the same way.
    public mutating func recordSettings(look: LookSetup, lutInterpolation: String?) {
        settings.filters = look.settings
        settings.recipeName = look.resolved.name
        settings.film = look.filmLabel
        settings.strength = look.filmLabel == nil ? nil : look.resolved.strength
        settings.colorModel = decode.colorModel.rawValue
        settings.lutInterpolation = look.filmLabel == nil ? nil : lutInterpolation ?? LUT3D.Interpolation.tetrahedral.rawValue
    }
}
