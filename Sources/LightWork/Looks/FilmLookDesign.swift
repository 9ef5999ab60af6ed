import Foundation

/// LightWork's own film looks (original designs, no copied data, no trade names) and the catalog that ships
/// them in the app's schema. `lightwork-tools` renders each look's lookup image with `lookupImagePixels(for:)`
/// and writes `catalog.json` with `catalogJSON()` into Profiles/films.
public enum FilmLookDesign {
    /// A pack of looks as the catalog shows it.
    public struct PackDesign: Sendable {
        public let category: Int
        public let packId: String
        public let name: String
        public let description: String
        public let availability: PackAvailability
        public let price: Double
        public let colour: String
        /// Whether the pack starts with the None film (the app put it first in each category's free pack).
        public let startsWithNone: Bool
        public let looks: [FilmStock]
    }

    /// Every look, in catalog order.
    public static var all: [FilmStock] { packs.flatMap(\.looks) }

    /// The look with this lookupId.
    public static func look(id: String) -> FilmStock? { all.first { $0.lookupId == id } }

    /// The 512×512 RGB8 lookup image (app layout) of a look.
    public static func lookupImagePixels(for look: FilmStock) -> (width: Int, height: Int, samples: [UInt8]) {
        LookupImage.pixels(of: look.lut(size: LookupImageReader.tile))
    }

    /// The LightWork publisher's Ed25519 public key (base64), the catalog's `publisherKey`: paid and bonus unlocks
    /// must be signed with its secret half, which the publisher keeps outside the repository (docs/unlocks.md).
    public static let publisherKey = "Ef1tZ9WpiQUGrO6zQCHSwMiwzzjitmIY62JTosFFpVo="

    /// The catalog listing every pack and look (lookup images named, to be written beside it).
    public static func catalog() -> FilmCatalog {
        var categories: [FilmCategory] = []
        for pack in packs {
            var films: [Film] = []
            if pack.startsWithNone {
                films.append(Film(isNone: true, isFirstInPack: true, filterName: "None", filterDescription: "No film: the image as developed",
                                  lookupImageName: "", lookupId: FilmCatalog.noneId))
            }
            for look in pack.looks {
                films.append(Film(isNone: false, isFirstInPack: films.isEmpty, filterName: look.name, filterDescription: look.summary,
                                  lookupImageName: look.imageName, lookupId: look.lookupId))
            }
            let fp = FilmPack(packId: pack.packId, price: pack.price, availabilityType: pack.availability,
                              isAvailable: pack.availability == .free,
                              unlockMessage: pack.availability == .freeUnlock ? "Free" : "",
                              name: pack.name, packDescription: pack.description, colour: pack.colour,
                              packLockedImage: "", packLockedImage6Plus: "", films: films)
            if let i = categories.firstIndex(where: { $0.filterCategory == pack.category }) {
                categories[i].packs.append(fp)
            } else {
                categories.append(FilmCategory(filterCategory: pack.category, packs: [fp]))
            }
        }
        return FilmCatalog(categories: categories, publisherKey: publisherKey)
    }

    /// `catalog()` as the JSON file Profiles/films/catalog.json holds.
    public static func catalogJSON() throws -> Data { try catalog().jsonData() }

    // MARK: - The packs

    public static let packs: [PackDesign] = [
        PackDesign(category: 0, packId: "0001", name: "Everyday Colour", description: "Colour negative and slide looks that come with LightWork",
                   availability: .free, price: 0, colour: "#D98E04", startsWithNone: true,
                   looks: [harbourNegative, daylightSlide, softPortrait, cornerShop]),
        PackDesign(category: 0, packId: "0002", name: "Sun-faded", description: "Faded, expired and tungsten stock: free, unlock once",
                   availability: .freeUnlock, price: 0, colour: "#C4586C", startsWithNone: false,
                   looks: [fadedSummer, expiredStock, nightTungsten]),
        PackDesign(category: 0, packId: "0003", name: "Lab Experiments", description: "Cross-processing, dense slide and skipped bleach",
                   availability: .paid, price: 1.99, colour: "#2A7F8F", startsWithNone: false,
                   looks: [crossLagoon, deepChrome, silverRetained]),
        PackDesign(category: 1, packId: "1001", name: "Silver Halide", description: "Black-and-white films that come with LightWork",
                   availability: .free, price: 0, colour: "#6E6E6E", startsWithNone: true,
                   looks: [silver400, push3200, orthoPlate]),
        PackDesign(category: 1, packId: "1002", name: "Darkroom Bonus", description: "Toned prints and an infrared look, granted as a bonus",
                   availability: .bonus, price: 0, colour: "#8A6B3F", startsWithNone: false,
                   looks: [seleniumTone, sepiaPrint, infraredMeadow]),
    ]

    // MARK: - Colour negative and slide (pack 0001, free)

    /// Warm, forgiving colour negative: soft shoulder, slightly teal shadows, warm highlights.
    static let harbourNegative: FilmStock = {
        var l = FilmStock(name: "Harbour\nNegative 160", summary: "Warm colour negative:\nsoft contrast, teal shadows",
                         lookupId: "0001001", imageName: "LW_Harbour-Negative.png")
        l.mixer = Matrix3([[1.02, -0.01, -0.01], [0.0, 1.0, 0.0], [-0.01, 0.02, 0.99]])
        l.saturation = 0.92
        l.tone = ToneCurve([(0, 0.03), (0.25, 0.22), (0.5, 0.52), (0.75, 0.79), (1, 0.97)])
        l.red = ToneCurve([(0, 0), (0.5, 0.52), (1, 1)])
        l.blue = ToneCurve([(0, 0.02), (0.5, 0.48), (1, 0.96)])
        l.shadowTint = SIMD3(-0.012, 0.008, 0.015)
        l.highlightTint = SIMD3(0.02, 0.008, -0.018)
        return l
    }()

    /// Punchy daylight slide: strong S-curve, clean separation, cool deep shadows.
    static let daylightSlide: FilmStock = {
        var l = FilmStock(name: "Daylight\nSlide 100", summary: "Punchy slide film:\nhigh contrast, vivid, cool shadows",
                         lookupId: "0001002", imageName: "LW_Daylight-Slide.png")
        l.mixer = Matrix3([[1.08, -0.05, -0.03], [-0.03, 1.06, -0.03], [-0.02, -0.06, 1.08]])
        l.saturation = 1.22
        l.tone = ToneCurve([(0, 0), (0.2, 0.13), (0.5, 0.5), (0.8, 0.87), (1, 1)])
        l.shadowTint = SIMD3(-0.01, 0, 0.02)
        return l
    }()

    /// Low-contrast portrait negative: gentle toe, muted colour, skin-friendly warmth.
    static let softPortrait: FilmStock = {
        var l = FilmStock(name: "Soft\nPortrait 160", summary: "Portrait negative:\nlow contrast, kind to skin",
                         lookupId: "0001003", imageName: "LW_Soft-Portrait.png")
        l.saturation = 0.85
        l.tone = ToneCurve([(0, 0.04), (0.3, 0.31), (0.6, 0.62), (1, 0.96)])
        l.red = ToneCurve([(0, 0), (0.5, 0.515), (1, 1)])
        l.green = ToneCurve([(0, 0), (0.5, 0.505), (1, 1)])
        l.highlightTint = SIMD3(0.015, 0.008, 0)
        return l
    }()

    /// Consumer print film: warm-yellow cast, a little extra colour, slightly lifted blacks.
    static let cornerShop: FilmStock = {
        var l = FilmStock(name: "Corner Shop\n200", summary: "Consumer print film:\nwarm, yellow-green cast",
                         lookupId: "0001004", imageName: "LW_Corner-Shop-200.png")
        l.saturation = 1.08
        l.tone = ToneCurve([(0, 0.02), (0.25, 0.23), (0.5, 0.53), (0.75, 0.8), (1, 0.98)])
        l.green = ToneCurve([(0, 0), (0.5, 0.51), (1, 1)])
        l.blue = ToneCurve([(0, 0), (0.5, 0.46), (1, 0.95)])
        return l
    }()

    // MARK: - Faded and expired (pack 0002, free unlock)

    /// Sun-bleached print: lifted blacks, dimmer whites, warm highlights, little colour.
    static let fadedSummer: FilmStock = {
        var l = FilmStock(name: "Faded\nSummer", summary: "Sun-bleached print:\nlifted blacks, warm and pale",
                         lookupId: "0002001", imageName: "LW_Faded-Summer.png")
        l.saturation = 0.78
        l.tone = ToneCurve([(0, 0), (0.5, 0.54), (1, 1)])
        l.shadowTint = SIMD3(0, 0.01, 0.02)
        l.highlightTint = SIMD3(0.03, 0.015, -0.02)
        l.blackLift = 0.09
        l.whitePoint = 0.95
        return l
    }()

    /// Outdated stock: magenta cast, green-shifted highlights, raised blue toe.
    static let expiredStock: FilmStock = {
        var l = FilmStock(name: "Expired\nStock", summary: "Film past its date:\nmagenta cast, colour crossover",
                         lookupId: "0002002", imageName: "LW_Expired-Stock.png")
        l.saturation = 0.85
        l.red = ToneCurve([(0, 0.03), (0.5, 0.55), (1, 1)])
        l.green = ToneCurve([(0, 0), (0.5, 0.45), (1, 0.93)])
        l.blue = ToneCurve([(0, 0.06), (0.5, 0.5), (1, 0.9)])
        l.blackLift = 0.05
        return l
    }()

    /// Tungsten-balanced film in mixed light: cool overall, blue-cyan shadows, crisp mid-tones.
    static let nightTungsten: FilmStock = {
        var l = FilmStock(name: "Night\nTungsten 500", summary: "Tungsten film at night:\ncool, cyan shadows",
                         lookupId: "0002003", imageName: "LW_Night-Tungsten.png")
        l.mixer = Matrix3([[0.97, 0.03, 0.0], [0.0, 1.0, 0.0], [0.0, 0.04, 0.96]])
        l.saturation = 0.95
        l.tone = ToneCurve([(0, 0), (0.25, 0.2), (0.5, 0.5), (0.75, 0.8), (1, 1)])
        l.red = ToneCurve([(0, 0), (0.5, 0.45), (1, 0.96)])
        l.blue = ToneCurve([(0, 0.02), (0.5, 0.56), (1, 1)])
        l.shadowTint = SIMD3(-0.01, 0.01, 0.03)
        return l
    }()

    // MARK: - Lab experiments (pack 0003, paid)

    /// Slide film developed as a negative: hard red, lifted flat blue, yellow-green highlights.
    static let crossLagoon: FilmStock = {
        var l = FilmStock(name: "Cross\nLagoon", summary: "Cross-processed slide:\nyellow highlights, blue shadows",
                         lookupId: "0003001", imageName: "LW_Cross-Lagoon.png")
        l.saturation = 1.15
        l.red = ToneCurve([(0, 0), (0.25, 0.15), (0.5, 0.52), (0.75, 0.88), (1, 1)])
        l.green = ToneCurve([(0, 0.02), (0.3, 0.3), (0.7, 0.78), (1, 1)])
        l.blue = ToneCurve([(0, 0.15), (0.5, 0.42), (1, 0.75)])
        return l
    }()

    /// Dense slide: deep blues, heavy mid-tones, rich but not garish colour.
    static let deepChrome: FilmStock = {
        var l = FilmStock(name: "Deep\nChrome 64", summary: "Dense slide film:\ndeep blues, heavy mid-tones",
                         lookupId: "0003002", imageName: "LW_Deep-Chrome.png")
        l.mixer = Matrix3([[1.04, -0.02, -0.02], [-0.02, 1.03, -0.01], [-0.04, -0.04, 1.08]])
        l.saturation = 1.18
        l.tone = ToneCurve([(0, 0), (0.3, 0.22), (0.6, 0.58), (1, 0.98)])
        l.red = ToneCurve([(0, 0), (0.5, 0.49), (1, 1)])
        return l
    }()

    /// Bleach skipped: silver kept in the print, so low colour and hard contrast.
    static let silverRetained: FilmStock = {
        var l = FilmStock(name: "Silver\nRetained", summary: "Skipped bleach:\nlow colour, hard contrast",
                         lookupId: "0003003", imageName: "LW_Silver-Retained.png")
        l.saturation = 0.45
        l.tone = ToneCurve([(0, 0), (0.2, 0.1), (0.5, 0.5), (0.8, 0.9), (1, 1)])
        l.blackLift = 0.015
        return l
    }()

    // MARK: - Black and white (pack 1001, free)

    /// Classic panchromatic 400: moderate S-curve, open shadows.
    static let silver400: FilmStock = {
        var l = FilmStock(name: "Silver\n400", summary: "Black-and-white 400:\nclassic tones, open shadows",
                         lookupId: "1001001", imageName: "LW_Silver-400.png")
        l.monochrome = SIMD3(0.27, 0.6, 0.13)
        l.tone = ToneCurve([(0, 0.01), (0.25, 0.2), (0.5, 0.5), (0.75, 0.8), (1, 0.99)])
        return l
    }()

    /// Pushed three stops: crushed blacks, hard highlights, red-sensitive.
    static let push3200: FilmStock = {
        var l = FilmStock(name: "Push\n3200", summary: "Pushed black-and-white:\ngritty, crushed blacks",
                         lookupId: "1001002", imageName: "LW_Push-3200.png")
        l.monochrome = SIMD3(0.36, 0.5, 0.14)
        l.tone = ToneCurve([(0, 0), (0.15, 0.03), (0.5, 0.5), (0.75, 0.92), (1, 1)])
        return l
    }()

    /// Orthochromatic plate: blind to red (reds print dark), blue skies go pale.
    static let orthoPlate: FilmStock = {
        var l = FilmStock(name: "Ortho\nPlate", summary: "Orthochromatic:\nreds dark, skies pale",
                         lookupId: "1001003", imageName: "LW_Ortho-Plate.png")
        l.monochrome = SIMD3(0.02, 0.4, 0.58)
        l.tone = ToneCurve([(0, 0), (0.3, 0.27), (0.7, 0.76), (1, 1)])
        return l
    }()

    // MARK: - Darkroom (pack 1002, bonus)

    /// Selenium-toned print: deep cool-purple blacks, neutral highlights.
    static let seleniumTone: FilmStock = {
        var l = FilmStock(name: "Selenium\nTone", summary: "Selenium-toned print:\ncool, deep blacks",
                         lookupId: "1002001", imageName: "LW_Selenium-Tone.png")
        l.monochrome = SIMD3(0.28, 0.58, 0.14)
        l.tone = ToneCurve([(0, 0), (0.25, 0.18), (0.5, 0.48), (1, 1)])
        l.shadowTint = SIMD3(-0.012, -0.02, 0.03)
        return l
    }()

    /// Sepia-toned print: warm brown throughout, lifted paper base, softened white.
    static let sepiaPrint: FilmStock = {
        var l = FilmStock(name: "Sepia\nPrint", summary: "Sepia-toned print:\nwarm brown, soft paper white",
                         lookupId: "1002002", imageName: "LW_Sepia-Print.png")
        l.monochrome = SIMD3(0.3, 0.59, 0.11)
        l.tone = ToneCurve([(0, 0), (0.5, 0.52), (1, 1)])
        l.shadowTint = SIMD3(0.05, 0.01, -0.04)
        l.highlightTint = SIMD3(0.06, 0.025, -0.05)
        l.blackLift = 0.03
        l.whitePoint = 0.97
        return l
    }()

    /// Infrared impression: foliage glows (green weighted, blue subtracted), skies go dark.
    static let infraredMeadow: FilmStock = {
        var l = FilmStock(name: "Infrared\nMeadow", summary: "Infrared impression:\nglowing leaves, dark skies",
                         lookupId: "1002003", imageName: "LW_Infrared-Meadow.png")
        l.monochrome = SIMD3(0.4, 0.85, -0.25)
        l.tone = ToneCurve([(0, 0), (0.3, 0.34), (0.7, 0.82), (1, 1)])
        return l
    }()
}
