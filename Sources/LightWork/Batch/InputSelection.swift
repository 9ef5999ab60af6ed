import Foundation

/// `--min-rating N` and `--label L`: a batch takes only the inputs whose XMP sidecar rates them at least N stars and/or
/// gives them one of the colour labels L (xmp:Rating, xmp:Label; labels compared ignoring case).
///
/// Decided in the planner, in the batch parent, from sidecars alone: the parent never runs exiv2 (or any decoder) on an
/// image file, since a crafted file could crash it (docs/batch.md); a sidecar is XMP text, read by exiv2's XMP parser
/// only. So a rating or label embedded in the image file itself does not select it (it is still carried into the
/// output). An input without a sidecar is unrated and unlabelled; rejected (-1) is below every N ≥ 0. Inputs not taken
/// are counted as filtered out in the summary; one whose sidecar is malformed fails, naming the sidecar.
public struct InputSelection: Sendable, Equatable {
    /// The lowest xmp:Rating taken (0…5); nil: any.
    public var minRating: Int?
    /// The labels taken (any of them); empty: any.
    public var labels: [String]

    public init(minRating: Int? = nil, labels: [String] = []) throws {
        if let minRating, !(0...5).contains(minRating) {
            throw LightWorkError.usage("--min-rating takes 0…5 stars, not \(minRating)")
        }
        if labels.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw LightWorkError.usage("a --label is empty")
        }
        self.minRating = minRating
        self.labels = labels.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Whether nothing is selected on.
    public var isEmpty: Bool { minRating == nil && labels.isEmpty }

    /// What the planner does with one input.
    public enum Verdict: Equatable {
        case take
        /// Not taken; why, in words.
        case filteredOut(String)
        /// Its sidecar cannot be read: the input fails with this error.
        case fail(LightWorkError)
    }

    /// The verdict on the input at `url`, from its sidecar.
    public func verdict(for url: URL) -> Verdict {
        guard !isEmpty else { return .take }
        guard let sidecar = XMPSidecar.find(for: url).used else { return verdict(for: nil) }
        do { return verdict(for: try XMPSidecar.read(sidecar)) } catch let error as LightWorkError { return .fail(error) } catch {
            return .fail(.invalidDocument(file: sidecar.path, path: "$", reason: "\(error)"))
        }
    }

    /// The verdict on an input whose sidecar states `metadata` (nil: it has no sidecar).
    public func verdict(for metadata: DescriptiveMetadata?) -> Verdict {
        let why = metadata == nil ? "no XMP sidecar: " : ""
        if let minRating {
            let rating = metadata?.rating ?? 0
            if rating < minRating { return .filteredOut("\(why)rated \(rating), below --min-rating \(minRating)") }
        }
        if !labels.isEmpty {
            guard let label = metadata?.label else { return .filteredOut("\(why)no colour label (--label \(labels.joined(separator: ",")))") }
            if !labels.contains(where: { $0.caseInsensitiveCompare(label) == .orderedSame }) {
                return .filteredOut("labelled \(label), not --label \(labels.joined(separator: ","))")
            }
        }
        return .take
    }
}
