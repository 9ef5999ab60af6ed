/// What happens when an output name is taken (`--on-exist`): by a file already in the output folder that no
/// earlier LightWork run recorded as this input's output, or by an earlier input of the same run.
///
/// The default is `skip`: it never destroys a file and never multiplies them. A re-run whose manifest was
/// deleted therefore skips rather than writing `IMG_1-2.tif` beside every output (darktable-cli's silent
/// renaming), and a photographer's own edits in the output folder survive. Outputs that the previous manifest
/// at the same path records for the same input are LightWork's own: the resume logic decides about those
/// (reuse when unchanged, redo when the settings changed), whatever the policy.
public enum CollisionPolicy: String, Sendable, CaseIterable {
    /// Leave the existing file; the input is `skipped` with the reason. Within one run, a second input
    /// mapping to a name already planned fails with a message naming both.
    case skip
    /// Replace the existing file (atomically: the new file is renamed over it). Within one run, a second
    /// input mapping to a name already planned fails, as with `skip`.
    case overwrite
    /// Write `name-2.ext` (then -3, …), the first name that is free on disk and in this run; the manifest
    /// entry notes the rename.
    case suffix
}
