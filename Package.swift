// swift-tools-version:6.0
// LightWork: a RAW development batch pipeline. Only the toolchain and Debian's C libraries.
import PackageDescription

/// A pkg-config-found C library wrapped as a Swift module (see Sources/C*/module.modulemap).
func systemLibrary(_ name: String, _ pkg: String, _ apt: String) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkg, providers: [.apt([apt])])
}

let package = Package(
    name: "LightWork",
    products: [
        .executable(name: "lightwork", targets: ["lightwork"]),
        .executable(name: "lightwork-tools", targets: ["LightWorkTools"]),
        .library(name: "LightWork", targets: ["LightWork"]),
    ],
    targets: [
        systemLibrary("CLibRaw", "libraw_r", "libraw-dev"),
        systemLibrary("CLCMS2", "lcms2", "liblcms2-dev"),
        systemLibrary("CTIFF", "libtiff-4", "libtiff-dev"),
        systemLibrary("CJPEG", "libjpeg", "libjpeg62-turbo-dev"),
        systemLibrary("CPNG", "libpng16", "libpng-dev"),
        // libdeflate (libtiff's own Deflate engine), called directly to compress TIFF strips on every core.
        systemLibrary("CDeflate", "libdeflate", "libdeflate-dev"),
        // libsodium's Ed25519: the catalog publisher's signatures on paid and bonus film unlocks.
        systemLibrary("CSodium", "libsodium", "libsodium-dev"),
        // lensfun 0.3 (Debian 12) and its database: lens distortion, TCA and vignetting profiles (develop `lens`).
        systemLibrary("CLensfun", "lensfun", "liblensfun-dev"),
        // SQLite: the export ledger of each output folder (every record of every run into it; docs/batch.md).
        systemLibrary("CSQLite", "sqlite3", "libsqlite3-dev"),
        // exiv2 0.27: XMP and IPTC read from inputs and sidecars, and the XMP packet and IPTC-IIM of outputs.
        systemLibrary("CExiv2", "exiv2", "libexiv2-dev"),
        // libavif 0.11 (aom encodes, dav1d decodes) and libjxl 0.7 with its thread runner: AVIF and JPEG XL in and out.
        systemLibrary("CAVIF", "libavif", "libavif-dev"),
        systemLibrary("CJXL", "libjxl", "libjxl-dev"),
        // libwebp with its mux/demux (ICCP, EXIF, XMP chunks): WebP input and output (libwebpmux.pc requires libwebp; the modulemap links all three).
        systemLibrary("CWebP", "libwebpmux", "libwebp-dev"),
        // libheif 1.15 (libde265 decoding, x265 encoding): HEIF/HEIC input and output.
        systemLibrary("CHeif", "libheif", "libheif-dev"),
        // libmicrohttpd: the studio monitor's web server (`watch --serve`); CHTTPServer is its C face for Swift.
        systemLibrary("CMicroHTTPD", "libmicrohttpd", "libmicrohttpd-dev"),
        .target(name: "CHTTPServer", dependencies: ["CMicroHTTPD"]),
        // The few calls Swift cannot make: variadic TIFF calls, setjmp error handling, LittleCMS TYPE_* macros, F16C.
        .target(name: "CShims", dependencies: ["CLCMS2", "CTIFF", "CJPEG", "CPNG", "CDeflate"]),
        // LibRaw's C++ stream interface: an in-memory input that records how far the loader read (truncation).
        .target(name: "CLibRawStream", dependencies: ["CLibRaw", "CJPEG", "CShims"]),
        // exiv2's C++ API behind a C one (lw_exiv2.h): descriptive fields in, XMP packets and IIM out.
        .target(name: "CExiv2Shim", dependencies: ["CExiv2"]),
        .target(name: "LightWork", dependencies: ["CLibRaw", "CLibRawStream", "CExiv2", "CExiv2Shim", "CLCMS2", "CTIFF", "CJPEG", "CPNG", "CShims", "CSodium", "CLensfun", "CSQLite", "CAVIF", "CJXL", "CWebP", "CHeif", "CHTTPServer"]),
        .executableTarget(name: "lightwork", dependencies: ["LightWork"]),
        .executableTarget(name: "LightWorkTools", dependencies: ["LightWork", "CShims", "CTIFF", "CSodium", "CLensfun"]),
        // The fuzz targets' bodies, for the fuzzer and the tests that replay its corpora; `lightwork` does not link them.
        .target(name: "LightWorkFuzzBodies", dependencies: ["LightWork", "CShims"]),
        // libFuzzer targets for LightWork's parsers: a stub in ordinary builds, the fuzzer under `make fuzz`.
        .executableTarget(name: "LightWorkFuzz", dependencies: ["LightWorkFuzzBodies"]),
        .testTarget(name: "LightWorkTests", dependencies: ["LightWork", "LightWorkFuzzBodies", "CShims", "CLCMS2", "CTIFF", "CJPEG", "CPNG", "CLibRaw", "CSodium", "CSQLite", "CAVIF", "CJXL", "CHeif"]),
    ]
)

