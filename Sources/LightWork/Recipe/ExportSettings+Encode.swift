import Foundation

extension ExportSettings {
    /// Applies this block's format and colour space over `encode` and `colorSpace`: what convert and verify both do
    /// between the defaults and their own flags or fields. Its encoder options are set once the format is final
    /// (`EncodeSettings.setOptions(optionValues, from: .recipe)`).
    public func apply(to encode: inout EncodeSettings, colorSpace: inout OutputColorSpace) {
        if let outputFormat { encode.format = outputFormat }
        if let colorspace { colorSpace = colorspace }
    }
}
