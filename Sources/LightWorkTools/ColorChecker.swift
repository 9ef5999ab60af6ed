/// One patch of the 24-patch ColorChecker: its printed name and its reference colour.
struct ColorCheckerPatch: Sendable {
    let name: String
    /// CIELAB under D50, 2° observer.
    let lab: SIMD3<Double>
}

/// The 24-patch ColorChecker Classic, in reading order (dark skin top-left, black bottom-right, 6 × 4).
enum ColorChecker {
    /// Where the reference values come from; also written into the truth file.
    static let source = "X-Rite ColorChecker Classic reference data, charts made after November 2014 "
        + "(CIELAB D50, 2-degree observer), as published by X-Rite in ColorChecker24_After_Nov2014"

    static let columns = 6
    static let rows = 4

    // X-Rite "after November 2014" CIELAB D50 values (the same table colour-science ships as
    // "ColorChecker24 - After November 2014").
    static let patches: [ColorCheckerPatch] = [
        .init(name: "dark skin", lab: [37.54, 14.37, 14.92]),
        .init(name: "light skin", lab: [64.66, 19.27, 17.50]),
        .init(name: "blue sky", lab: [49.32, -3.82, -22.54]),
        .init(name: "foliage", lab: [43.46, -12.74, 22.72]),
        .init(name: "blue flower", lab: [54.94, 9.61, -24.79]),
        .init(name: "bluish green", lab: [70.48, -32.26, -0.37]),
        .init(name: "orange", lab: [62.73, 35.83, 56.50]),
        .init(name: "purplish blue", lab: [39.43, 10.75, -45.17]),
        .init(name: "moderate red", lab: [50.57, 48.64, 16.67]),
        .init(name: "purple", lab: [30.10, 22.54, -20.87]),
        .init(name: "yellow green", lab: [71.77, -24.13, 58.19]),
        .init(name: "orange yellow", lab: [71.51, 18.24, 67.37]),
        .init(name: "blue", lab: [28.37, 15.42, -49.80]),
        .init(name: "green", lab: [54.38, -39.72, 32.27]),
        .init(name: "red", lab: [42.43, 51.05, 28.62]),
        .init(name: "yellow", lab: [81.80, 2.67, 80.41]),
        .init(name: "magenta", lab: [50.63, 51.28, -14.12]),
        .init(name: "cyan", lab: [49.57, -29.71, -28.32]),
        .init(name: "white 9.5", lab: [95.19, -1.03, 2.93]),
        .init(name: "neutral 8", lab: [81.29, -0.57, 0.44]),
        .init(name: "neutral 6.5", lab: [66.89, -0.75, -0.06]),
        .init(name: "neutral 5", lab: [50.76, -0.13, 0.14]),
        .init(name: "neutral 3.5", lab: [35.63, -0.46, -0.48]),
        .init(name: "black 2", lab: [20.64, 0.07, -0.46]),
    ]
}
