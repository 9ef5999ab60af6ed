import Foundation

/// Every failure LightWork reports. Each message names what went wrong in words a user can act on;
/// the file concerned is added by the caller (see `FileFailure`).
public enum LightWorkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path does not exist.
    case missingInput(String)
    /// The file exists but is empty.
    case emptyFile
    /// The bytes are not an image format LightWork reads.
    case unsupportedFormat(String)
    /// The decoder rejected the file (truncated, corrupt, unsupported variant).
    case decodeFailed(String)
    /// The file ends before its image data does: `needed` is one past the furthest byte the decoder asked for.
    case truncated(dataEnd: Int, needed: Int)
    /// The image decoded but carries no picture (for example a DNG whose image data was stripped).
    case blankImage(String)
    /// Width × height above the configured pixel limit (checked before allocating).
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// Colour management failed (bad ICC profile, impossible transform).
    case colour(String)
    /// Writing an output failed; nothing is left under the final name.
    case writeFailed(String)
    /// A command-line or recipe mistake, found before any file is touched.
    case usage(String)
    /// A recipe, catalog or LUT file that is not valid; `path` is the JSON path or line of the mistake.
    case invalidDocument(file: String, path: String, reason: String)
    /// A film exists but its pack is locked.
    case locked(String)
    /// A synced entitlement file's unlock of `packId` failed its signature check; nothing in the file was unlocked.
    /// `label` is the pack's name and availability as the catalog gives them.
    case unlockRefused(file: String, packId: String, label: String, reason: UnlockRefusal)
    /// The disk is full: the run stops (nothing truncated is kept).
    case diskFull(String)
    /// A decoder worker process died (signal or exit) with the file in flight, or could not be started or reached.
    case workerCrashed(String)
    /// A file was still converting after `seconds` (`--timeout`); its worker was stopped.
    case workerTimedOut(seconds: Double)
    /// A program LightWork drives is not installed or cannot run (`dcraw_emu` for `verify --against-libraw`).
    case missingTool(String)
    /// A film's lookup image or a LUT file no longer has the bytes (SHA-256) the conversion spec was made from:
    /// nothing is rendered with other bytes.
    case lookupChanged(file: String, expected: String, found: String)
    /// The output folder's export ledger (`ExportLedger`) cannot be opened, read or written.
    case ledger(String)

    public var description: String {
        switch self {
        case .missingInput(let p): return "no such file: \(p)"
        case .emptyFile: return "the file is empty"
        case .unsupportedFormat(let s): return "not a supported image: \(s)"
        case .decodeFailed(let s): return "cannot decode: \(s)"
        case let .truncated(end, needed):
            return "cannot decode: image data ends at byte \(end) of \(needed) needed (the file is cut short: an interrupted copy or upload?)"
        case .blankImage(let s): return "image has no picture data: \(s)"
        case let .tooManyPixels(w, h, limit):
            return "image is \(w)×\(h) = \(w * h) pixels, above the limit of \(limit) (raise it with --max-pixels)"
        case .colour(let s): return "colour management failed: \(s)"
        case .writeFailed(let s): return "cannot write output: \(s)"
        case .usage(let s): return s
        case let .invalidDocument(file, path, reason): return "\(file): at \(path): \(reason)"
        case .locked(let s): return s
        case let .unlockRefused(file, packId, label, reason):
            return "\(file): pack \(packId) \(label) refused, nothing unlocked: \(reason)"
        case .diskFull(let s): return "disk full: \(s)"
        case .workerCrashed(let s): return "decoder crashed: \(s)"
        case .workerTimedOut(let seconds):
            return String(format: "timed out: still converting after %g s (raise --timeout); its worker was stopped", seconds)
        case .missingTool(let s): return s
        case let .lookupChanged(file, expected, found):
            return "the look changed since the conversion was set up: \(file) has SHA-256 \(found.prefix(16))…, not \(expected.prefix(16))… (run the command again to use the new file)"
        case .ledger(let s): return "export ledger: \(s)"
        }
    }

    /// The kind a failed manifest entry records for this error (what code decides by; `description` is for people).
    public var kind: FailureKind {
        switch self {
        case .missingInput: return .missingInput
        case .emptyFile: return .emptyFile
        case .unsupportedFormat: return .unsupportedFormat
        case .decodeFailed: return .decodeFailed
        case .truncated: return .truncated
        case .blankImage: return .blankImage
        case .tooManyPixels: return .tooManyPixels
        case .colour: return .colour
        case .writeFailed: return .writeFailed
        case .usage: return .usage
        case .invalidDocument: return .invalidDocument
        case .locked: return .locked
        case .unlockRefused: return .unlockRefused
        case .diskFull: return .diskFull
        case .workerCrashed: return .workerCrashed
        case .workerTimedOut: return .workerTimedOut
        case .missingTool: return .missingTool
        case .lookupChanged: return .lookupChanged
        case .ledger: return .ledger
        }
    }
}

/// Why a file failed, as a manifest entry's `failureKind` records it: batch and watch decide by this (stop or
/// pause on a full disk), never by the reason's text, which stays the one line for people.
public enum FailureKind: String, Codable, Sendable, CaseIterable {
    /// One kind per `LightWorkError` case (see `LightWorkError.kind`).
    case missingInput, emptyFile, unsupportedFormat, decodeFailed, truncated, blankImage, tooManyPixels, colour,
         writeFailed, usage, invalidDocument, locked, unlockRefused, diskFull, workerCrashed, workerTimedOut, missingTool,
         lookupChanged, ledger
    /// The planned output name cannot be used: it collides with an earlier input's, or is not a file name.
    case outputNameRefused
    /// A system error LightWork has no case for (the reason gives the system's words).
    case other
}
