import LightWork
import XCTest

/// FilterChain.build: the original app's order, values routed to the right filters, defaults.
final class FilterChainTests: XCTestCase {
    /// The one place the tests hold the spec: the filters in the original app's order and the slider names recipes
    /// use (adding a filter adds its name here).
    func testChainIsInSpecOrder() {
        let names = FilterChain.build(values: [:], look: nil, strength: 0).map(\.name)
        XCTAssertEqual(names, ["brightness", "clarity", "contrast", "warmth/tint", "clarity2", "vignette", "film",
                               "postWarmth/postTint", "fade", "grain", "saturation", "dust"])
        XCTAssertEqual(FilterChain.valueNames, ["brightness", "clarity", "contrast", "warmth", "tint", "clarity2",
                                                "vignette", "vignette.size", "vignette.feather", "postWarmth", "postTint",
                                                "fade", "grain", "grain.size", "saturation", "dust", "dust.size"])
    }

    func testValuesReachTheirFiltersAndSubParametersDefault() throws {
        let chain = FilterChain.build(values: ["brightness": 0.7, "clarity2": -0.3, "warmth": 0.2, "postTint": -0.4,
                                               "vignette": 0.5, "vignette.feather": 0.9, "grain": 0.3, "dust": 0.6, "dust.size": 0.2],
                                      look: nil, strength: 0.8)
        func filter<F: Filter>(_ name: String, as _: F.Type) throws -> F {
            try XCTUnwrap(chain.first { $0.name == name } as? F, name)
        }
        XCTAssertEqual(try filter("brightness", as: Brightness.self).ev, 0.7)
        XCTAssertEqual(try filter("clarity", as: Clarity.self).amount, 0)
        XCTAssertEqual(try filter("clarity2", as: Clarity.self).amount, -0.3)
        XCTAssertEqual(try filter("warmth/tint", as: WhiteBalanceShift.self).warmth, 0.2)
        XCTAssertEqual(try filter("postWarmth/postTint", as: WhiteBalanceShift.self).tint, -0.4)
        let vignette = try filter("vignette", as: Vignette.self)
        XCTAssertEqual(vignette.size, 0.5)
        XCTAssertEqual(vignette.feather, 0.9)
        XCTAssertEqual(try filter("grain", as: Grain.self).size, 0.5)
        XCTAssertEqual(try filter("dust", as: Dust.self).size, 0.2)
        XCTAssertTrue(try filter("film", as: FilmLook.self).isNeutral, "no lookup: the film step is neutral whatever the strength")
        let active = chain.filter { !$0.isNeutral }.map(\.name)
        XCTAssertEqual(active, ["brightness", "warmth/tint", "clarity2", "vignette", "postWarmth/postTint", "grain", "dust"])
    }

    func testEveryValueNameChangesTheChain() {
        let neutral = FilterChain.build(values: [:], look: nil, strength: 0)
        for key in FilterChain.valueNames where FilterChain.defaults[key] == nil {
            let chain = FilterChain.build(values: [key: 0.5], look: nil, strength: 0)
            let changed = zip(chain, neutral).filter { !$0.0.isNeutral }.map(\.0.name)
            XCTAssertEqual(changed.count, 1, key)
        }
    }

    /// One type, two places: the second clarity and the post-film white balance are their own instances with their
    /// own names and values, built by the same types as the first ones.
    func testTypesUsedTwiceKeepTheirOwnNamesAndValues() {
        let chain = FilterChain.build(values: ["clarity": 0.1, "clarity2": -0.3, "warmth": 0.2, "tint": 0.05,
                                               "postWarmth": -0.6, "postTint": 0.7], look: nil, strength: 0)
        let clarities = chain.compactMap { $0 as? Clarity }
        XCTAssertEqual(clarities.map(\.name), ["clarity", "clarity2"])
        XCTAssertEqual(clarities.map(\.amount), [0.1, -0.3])
        let balances = chain.compactMap { $0 as? WhiteBalanceShift }
        XCTAssertEqual(balances.map(\.name), ["warmth/tint", "postWarmth/postTint"])
        XCTAssertEqual(balances.map(\.warmth), [0.2, -0.6])
        XCTAssertEqual(balances.map(\.tint), [0.05, 0.7])
        XCTAssertEqual(FilterChain.types.count, FilterChain.slots.count)
        let film = chain.firstIndex { $0 is FilmLook }!
        XCTAssertTrue(FilterChain.slots[..<film].allSatisfy { $0.stage == .pre })
        XCTAssertTrue(FilterChain.slots[(film + 1)...].allSatisfy { $0.stage == .post })
    }
}
