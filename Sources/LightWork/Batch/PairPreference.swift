/// Which file of a RAW+JPEG pair is converted (`--prefer`): files in one folder sharing a stem, one a RAW
/// and one a JPEG (`IMG_1.CR2` + `IMG_1.JPG`, case ignored), as cameras write them.
///
/// The default is `raw`, as Lightroom and Capture One treat such a pair: the JPEG is the camera's own
/// rendering of the same frame, and two outputs named IMG_1 would collide.
public enum PairPreference: String, Sendable, CaseIterable {
    /// Convert the RAW; the JPEG is `skipped` ("RAW+JPEG pair: RAW preferred").
    case raw
    /// Convert the JPEG; the RAW is `skipped`.
    case jpeg
    /// Convert both. The RAW keeps the plain name; the JPEG's name gets `-jpg` (its extension, lowercased)
    /// unless the `--name` template already contains `{ext}`, so the two never collide.
    case both
}
