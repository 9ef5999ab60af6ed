import Foundation

/// Finds the `Profiles` folder (filters.json, films/, icc/) whether LightWork runs from a checkout, an
/// installed prefix, or with an explicit override.
public enum ProfilesDirectory {
    /// The environment variable that names the folder explicitly.
    public static let environmentVariable = "LIGHTWORK_PROFILES"
    /// Where a system install puts it.
    public static let systemLocation = URL(fileURLWithPath: "/usr/share/lightwork/Profiles")

    /// Search order: `$LIGHTWORK_PROFILES` (must be valid when set), then `Profiles/` in the executable's folder
    /// or any folder above it (…/.build/release/lightwork → repo/Profiles), then the same from the current
    /// directory, then `share/lightwork/Profiles` beside the executable's `bin` (an install under any prefix), then
    /// `/usr/share/lightwork/Profiles`. A folder counts when it holds `filters.json`.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                              executable: URL? = Bundle.main.executableURL,
                              currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                              systemLocation: URL = ProfilesDirectory.systemLocation) throws -> URL {
        if let explicit = environment[environmentVariable], !explicit.isEmpty {
            let url = URL(fileURLWithPath: explicit).standardizedFileURL
            guard isProfiles(url) else {
                throw LightWorkError.usage("\(environmentVariable)=\(explicit) is not a Profiles folder (no filters.json in it)")
            }
            return url
        }
        var tried: [String] = []
        for start in [executable?.resolvingSymlinksInPath().deletingLastPathComponent(), currentDirectory].compactMap({ $0 }) {
            var dir = start.standardizedFileURL
            while true {
                let candidate = dir.appendingPathComponent("Profiles")
                if isProfiles(candidate) { return candidate }
                tried.append(candidate.path)
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        // An install under any prefix: PREFIX/bin/lightwork finds PREFIX/share/lightwork/Profiles.
        if let bin = executable?.resolvingSymlinksInPath().deletingLastPathComponent() {
            let installed = bin.deletingLastPathComponent().appendingPathComponent("share/lightwork/Profiles").standardizedFileURL
            if isProfiles(installed) { return installed }
            tried.append(installed.path)
        }
        if isProfiles(systemLocation) { return systemLocation }
        throw LightWorkError.usage("""
            cannot find LightWork's Profiles folder (filters.json, films/): set \(environmentVariable) to it, \
            run from the repository, or install it at \(systemLocation.path) \
            (looked above the executable and the current directory, e.g. \(tried.first ?? "-"))
            """)
    }

    private static func isProfiles(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent("filters.json").path)
    }
}
