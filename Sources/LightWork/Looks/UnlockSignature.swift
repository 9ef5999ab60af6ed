import CSodium
import Foundation

/// Why an unlock from a synced entitlement file was refused (`LightWorkError.unlockRefused`).
public enum UnlockRefusal: Sendable, Hashable, CustomStringConvertible {
    /// A paid, bonus or unknown pack with no `signature`.
    case unsigned
    /// The catalog declares no `publisherKey`, so no signature can be checked.
    case noPublisherKey
    /// `signature` is not standard base64.
    case notBase64
    /// `signature` decodes to this many bytes, not an Ed25519 signature's 64.
    case badLength(Int)
    /// A signed unlock without a `holder`, or one with control characters or longer than `UnlockSignature.maxHolderBytes`.
    case badHolder
    /// The signature does not verify: another key, or made for another pack or holder.
    case badSignature

    public var description: String {
        switch self {
        case .unsigned: return "a paid, bonus or unknown pack needs the catalog publisher's signature, and this unlock has none"
        case .noPublisherKey: return "the catalog declares no publisherKey, so its signature cannot be checked"
        case .notBase64: return "its signature is not base64"
        case .badLength(let n): return "its signature is \(n) bytes; an Ed25519 signature is \(UnlockSignature.signatureBytes)"
        case .badHolder: return "a signed unlock names its holder (1…\(UnlockSignature.maxHolderBytes) bytes, no control characters)"
        case .badSignature: return "its signature does not verify against the catalog's publisher key (another key, or signed for another pack or holder)"
        }
    }
}

/// The catalog publisher's Ed25519 signature on one pack unlock (libsodium's `crypto_sign_verify_detached`).
///
/// The signed bytes are the UTF-8 text `lightwork-unlock-v1\npack=<packId>\nholder=<holder>\n`: the domain
/// line keeps a signature over anything else the key signs from passing as an unlock, the pack id (4 digits)
/// keeps it from unlocking another pack, and the holder (who it was issued to; no control characters, so it
/// cannot forge a line) keeps it from being re-issued to another name. Nothing else in an entry is signed.
public enum UnlockSignature {
    public static let domain = "lightwork-unlock-v1"
    public static let publicKeyBytes = 32
    public static let signatureBytes = 64
    public static let maxHolderBytes = 256

    /// The exact bytes the publisher signs for `packId` issued to `holder`.
    public static func message(packId: String, holder: String) -> [UInt8] {
        Array("\(domain)\npack=\(packId)\nholder=\(holder)\n".utf8)
    }

    /// Whether `holder` may appear in a signed message: non-empty, bounded, no control characters.
    public static func isValidHolder(_ holder: String) -> Bool {
        let bytes = holder.utf8.count
        return bytes > 0 && bytes <= maxHolderBytes && !holder.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The 32-byte public key in a catalog's `publisherKey` (base64), or nil when it is not one.
    public static func publicKey(base64: String) -> [UInt8]? {
        guard let data = Data(base64Encoded: base64), data.count == publicKeyBytes else { return nil }
        return [UInt8](data)
    }

    /// Nil when `signature` (base64) is the publisher's valid signature on `packId` for `holder`, else why not.
    public static func refusal(signature: String, packId: String, holder: String?, publicKey: [UInt8]?) -> UnlockRefusal? {
        guard let publicKey, publicKey.count == publicKeyBytes else { return .noPublisherKey }
        guard let data = Data(base64Encoded: signature) else { return .notBase64 }
        guard data.count == signatureBytes else { return .badLength(data.count) }
        guard let holder, isValidHolder(holder) else { return .badHolder }
        // Refuse rather than verify with a library that failed to initialise.
        guard sodiumReady else { return .badSignature }
        let signed = message(packId: packId, holder: holder)
        let status = [UInt8](data).withUnsafeBufferPointer { sig in
            signed.withUnsafeBufferPointer { msg in
                publicKey.withUnsafeBufferPointer { key in
                    crypto_sign_verify_detached(sig.baseAddress!, msg.baseAddress!, UInt64(msg.count), key.baseAddress!)
                }
            }
        }
        return status == 0 ? nil : .badSignature
    }

    /// libsodium must be initialised once before use; it is safe to call from several threads.
    private static let sodiumReady: Bool = sodium_init() >= 0
}
