import CExiv2Shim
import CJPEG
import CLCMS2
import CPNG
import CShims
import CTIFF

/// LightWork's own version and the versions of the libraries it is linked with (manifest, `--version`).
public enum LightWorkVersion {
    public static let current = "0.3.0"

    public static var libraries: [String: String] {
        let lcms = Int(cmsGetEncodedCMMversion())
        let tiffLine = String(cString: TIFFGetVersion()).split(separator: "\n").first.map(String.init) ?? ""
        return [
            "libraw": RawDecoder.libraryVersion,
            "lcms2": "\(lcms / 1000).\((lcms % 1000) / 10)",
            "libtiff": tiffLine.replacingOccurrences(of: "LIBTIFF, Version ", with: ""),
            "libjpeg-turbo": "\(LIBJPEG_TURBO_VERSION_NUMBER / 1_000_000).\(LIBJPEG_TURBO_VERSION_NUMBER / 1000 % 1000).\(LIBJPEG_TURBO_VERSION_NUMBER % 1000) (libjpeg API \(JPEG_LIB_VERSION))",
            "libpng": String(cString: png_get_libpng_ver(nil)),
            "exiv2": String(cString: lw_exiv2_version()),
            "f16c": lw_cpu_f16c() != 0 ? "yes" : "no",
        ]
    }
}
