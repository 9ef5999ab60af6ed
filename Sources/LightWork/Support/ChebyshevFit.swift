import Foundation

/// The polynomial through a function at the Chebyshev nodes of an interval: within a few ulp of the best
/// (minimax) fit of its degree, and cheap to build. `FastCurve`'s transfer curves and the vignette's
/// exponentials are fitted with it.
enum ChebyshevFit {
    /// Monomial coefficients (constant term first) in x of the degree-`degree` polynomial equal to `f` at
    /// the `degree + 1` Chebyshev nodes of `centre ± halfWidth`.
    static func coefficients(degree: Int, centre: Double, halfWidth: Double, _ f: (Double) -> Double) -> [Double] {
        let n = degree + 1
        let nodes = (0..<n).map { centre + halfWidth * cos((2 * Double($0) + 1) * Double.pi / Double(2 * n)) }
        // Vandermonde system, solved by Gaussian elimination with partial pivoting.
        var a = nodes.map { x in (0..<n).map { pow(x, Double($0)) } + [f(x)] }
        for col in 0..<n {
            let pivot = (col..<n).max { abs(a[$0][col]) < abs(a[$1][col]) }!
            a.swapAt(col, pivot)
            for row in 0..<n where row != col {
                let factor = a[row][col] / a[col][col]
                for k in col...n { a[row][k] -= factor * a[col][k] }
            }
        }
        return (0..<n).map { a[$0][n] / a[$0][$0] }
    }
}
