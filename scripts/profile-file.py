#!/usr/bin/env python3
"""Where one file's CPU time goes: `lightwork convert` of FILE under `perf record` (cpu-clock samples, workers
followed), every sampled symbol put in one stage of the per-file path by the rules below, and each stage's
milliseconds printed (samples / frequency). CPU time, one engine thread, so stages add up to the total.

usage: scripts/profile-file.py LIGHTWORK FILE [convert options...]   (needs perf: Debian linux-perf)
       PROFILE_OTHER=N also lists the N largest symbols no rule claims.
"""
import re, subprocess, sys, tempfile, os, collections

# (stage, pattern on "dso symbol"): first match wins. Kept in the order of the per-file path.
RULES = [
    ("unpack (LibRaw lossless JPEG)", r"libraw_r\.so.*(getbithuff|ljpeg|adobe_copy_pixel|lossless_dng|make_decoder|getbits)|TrackedStream"),
    # ljpeg.c's static helpers (fill, build, difference…) keep their bare names in the static binary.
    ("unpack (own lossless JPEG)", r"lw_ljpeg|ljpeg_tile|^lightwork (fill|build|difference|peek|skip|be16)\s*$"),
    ("LibRaw other", r"libraw_r\.so"),
    ("demosaic", r"\btile_(avx2|base)\b|rcd_|lw_demosaic|BayerKernel"),
    ("colour into half floats", r"RawDecoder.*convert|RowConversion|Session.*decode|float_to_half|half_from"),
    ("highlights", r"Highlights"),
    ("develop", r"Tone|Exposure|Denoise|Sharpen|Geometry|Lens|lw_atrous|lw_garrote|lw_bicubic|lw_dn_|atrous|garrote|emit_|sample8|lw_grid|lw_mix_row|lw_usm|luma_|hblur_|apply_(avx2|base)|tone_|lw_tone|opponent|WhiteBalance|DevelopStage|PlanarImage|rgba_to_planar|planar_to_rgba"),
    ("film lookup (3D LUT)", r"lut3d|LUT3D|LookupImage|LUTFile"),
    ("filter chain", r"Brightness|Contrast|Clarity|Warmth|Vignette|Fade|Grain|Saturation|Dust|cell_sums|Renderer|PixelBand|box_"),
    ("output transform", r"OutputTransform|EncodedGain|curve_avx2|curve_base|liblcms|cmsDo|lcms"),
    ("encode", r"libtiff|libjpeg|libpng|libdeflate|libz\.|TIFFWriter|JPEGWriter|PNGWriter|libwebp|libavif|libjxl|libheif"),
    ("hashing (SHA-256)", r"blocks_sha|sha256|SHA256"),
    # Before the page-fault rule: the kernel copying a write() into the page cache is a folio function too.
    ("file I/O (kernel)", r"copy_\w*iter|_copy_to_iter|filemap|ext4|find_get_block|vfs_|xfs|read_pages|__memmove"),
    ("page faults and zeroing", r"clear_page|page_fault|folio|do_anonymous_page|handle_mm_fault|get_page_from_freelist|memcg|alloc_pages|__memset|lruvec|pte_|rmqueue|mas_walk|vma"),
    ("start-up (dynamic linking, Swift runtime)", r"ld-linux|do_lookup|_dl_|libswiftCore|swift_conforms"),
    ("kernel, other (allocation, scheduling, system calls)", r"\[kernel"),
    ("malloc and free", r"libc\.so.*(malloc|free|calloc|unlink_chunk)|operator (new|delete)"),
]

def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, source, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        freq = 999
        cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(freq), "-o", data, "--", binary, "convert", source,
               "-o", os.path.join(tmp, "out"), "--threads", "1", "--jobs", "1", "--quiet"] + extra
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,symbol", "--stdio", "-g", "none",
                                 "-F", "sample,dso,symbol"], check=True, capture_output=True, text=True).stdout
    stages = collections.Counter()
    unmatched = collections.Counter()
    total = 0
    for line in report.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"\s*(\d+)\s+(\S+)\s+\[.\]\s+(.*)", line)
        if not m:
            continue
        n, key = int(m.group(1)), m.group(2) + " " + re.split(r"\s{2,}", m.group(3).strip())[0]   # perf pads, then adds "-  -" columns
        total += n
        stage = next((name for name, rule in RULES if re.search(rule, key)), "other")
        stages[stage] += n
        if stage == "other":
            unmatched[key] += n
    order = [name for name, _ in RULES] + ["other"]
    print(f"  {'stage':44s} {'CPU ms':>8s} {'share':>7s}")
    for name in order:
        if stages[name]:
            print(f"  {name:44s} {1000 * stages[name] / freq:8.0f} {100 * stages[name] / total:6.1f} %")
    print(f"  {'total':44s} {1000 * total / freq:8.0f}")
    if os.environ.get("PROFILE_OTHER"):
        # What the rules miss, largest first: where a new kernel needs a rule.
        for key, n in unmatched.most_common(int(os.environ["PROFILE_OTHER"])):
            print(f"    other: {1000 * n / freq:6.0f} ms  {key[:120]}")

if __name__ == "__main__":
    main()
