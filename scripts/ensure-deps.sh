#!/usr/bin/env bash
# Installs what LightWork needs on Debian when it is missing: the C libraries' -dev packages (found
# through pkg-config); with --bench, the peers used for comparison; with --test, what the integration tests
# drive: headless Chromium (the verify HTML report), Slurm and munge (scripts/slurm-test-cluster.sh),
# dcraw_emu (the LibRaw cross-check, RawGeometryTests), exiftool (the independent EXIF reader; DNG variants), and
# libwebp's and libheif's own tools (cwebp/dwebp/webpmux, heif-enc/heif-convert: WebP and HEIF test files), and
# rawtherapee-cli with rawtherapee-data's DCP camera profiles (the camera-profile conformance).
# Safe to run again: it only installs what
# pkg-config or PATH cannot find.
set -euo pipefail

want_bench=0 want_test=0 want_package=0
[ "${1:-}" = "--bench" ] && want_bench=1
[ "${1:-}" = "--test" ] && want_test=1
[ "${1:-}" = "--package" ] && want_package=1

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
check() { pkg-config --exists "$1" 2>/dev/null || missing+=("$2"); }
check libraw_r libraw-dev
check libdeflate libdeflate-dev
check lcms2 liblcms2-dev
check libtiff-4 libtiff-dev
check libjpeg libjpeg62-turbo-dev
check libpng16 libpng-dev
check libsodium libsodium-dev
# lensfun (develop --lens): its pkg-config file requires glib's, and the profiles are a package of their own.
check glib-2.0 libglib2.0-dev
check lensfun liblensfun-dev
[ -d /usr/share/lensfun/version_1 ] || missing+=(liblensfun-data-v1)
check sqlite3 libsqlite3-dev
# exiv2 (XMP/IPTC metadata and sidecars).
check exiv2 libexiv2-dev
# AVIF (libavif 0.11: aom encodes, dav1d decodes) and JPEG XL (libjxl 0.7 and its thread runner).
check libavif libavif-dev
check libjxl libjxl-dev
check libjxl_threads libjxl-dev
# WebP (libwebp with its mux/demux for the ICCP/EXIF/XMP chunks) and HEIF (libheif with its libde265 and x265 plugins).
check libwebpmux libwebp-dev
check libwebpdemux libwebp-dev
check libheif libheif-dev
# libmicrohttpd (the studio monitor's web server, watch --serve).
check libmicrohttpd libmicrohttpd-dev
if [ "$want_bench" = 1 ]; then
  command -v dcraw_emu >/dev/null 2>&1 || missing+=(libraw-bin)
  command -v /usr/bin/time >/dev/null 2>&1 || missing+=(time)
  # The demosaic comparison's peers (scripts/demosaic-quality.sh: RawTherapee's AMaZE and RCD, darktable's
  # default), given the DNG's BaselineExposure read with exiftool.
  command -v exiftool >/dev/null 2>&1 || missing+=(libimage-exiftool-perl)
  command -v rawtherapee-cli >/dev/null 2>&1 || missing+=(rawtherapee)
  command -v darktable-cli >/dev/null 2>&1 || missing+=(darktable)
  # The monitor section drives the watch with scripts/monitor-load.py.
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  # The per-file profile (scripts/profile-file.py) samples with perf.
  command -v perf >/dev/null 2>&1 || missing+=(linux-perf)
fi

if [ "$want_test" = 1 ]; then
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  # MonitorBrowserTests drive Chromium over its DevTools pipe with a small Python script (scripts/cdp-drive.py).
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  # The test starts daemons of its own (scripts/slurm-test-cluster.sh), never the packages' services.
  for tool in slurmctld slurmd sbatch; do command -v "$tool" >/dev/null 2>&1 || { missing+=(slurm-wlm); break; }; done
  command -v munged >/dev/null 2>&1 || missing+=(munge)
  # The LibRaw cross-check and RawGeometryTests compare with dcraw_emu and make DNG variants with exiftool.
  command -v dcraw_emu >/dev/null 2>&1 || missing+=(libraw-bin)
  command -v exiftool >/dev/null 2>&1 || missing+=(libimage-exiftool-perl)
  # TIFFInputTests and LosslessPathTests read outputs back with an independent reader: ImageMagick's convert.
  # The package, not a `convert` on PATH: a machine may carry a stand-in that forwards to the real one only when installed.
  dpkg-query -W -f='${Status}' imagemagick 2>/dev/null | grep -q "ok installed" || missing+=(imagemagick)
  # WebPCodecTests and HEIFCodecTests make inputs and decode outputs with the formats' own tools.
  for tool in cwebp dwebp webpmux; do command -v "$tool" >/dev/null 2>&1 || { missing+=(webp); break; }; done
  for tool in heif-enc heif-convert; do command -v "$tool" >/dev/null 2>&1 || { missing+=(libheif-examples); break; }; done
  # CompletionTests checks the zsh completion script with zsh -n.
  command -v zsh >/dev/null 2>&1 || missing+=(zsh)
  # AVIFJXLTests make inputs with the libraries' own encoders and decode outputs with their own decoders.
  for tool in avifenc avifdec; do command -v "$tool" >/dev/null 2>&1 || { missing+=(libavif-bin); break; }; done
  for tool in cjxl djxl jxlinfo; do command -v "$tool" >/dev/null 2>&1 || { missing+=(libjxl-tools); break; }; done
  # CameraProfileTests read Debian's DCP camera profiles and compare with rawtherapee-cli using the same ones.
  command -v rawtherapee-cli >/dev/null 2>&1 || missing+=(rawtherapee)
  [ -d /usr/share/rawtherapee/dcpprofiles ] || missing+=(rawtherapee-data)
fi

# make install / make deb (and the package test, which runs them): man pages from --help, Debian's packaging
# tools, and debootstrap for the fresh Debian 12 root the package is installed into.
if [ "$want_package" = 1 ] || [ "$want_test" = 1 ]; then
  command -v help2man >/dev/null 2>&1 || missing+=(help2man)
  command -v dpkg-shlibdeps >/dev/null 2>&1 || missing+=(dpkg-dev)
  command -v lintian >/dev/null 2>&1 || missing+=(lintian)
  command -v objdump >/dev/null 2>&1 || missing+=(binutils)
  command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing missing packages: ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "error: LightWork needs these Debian packages: ${missing[*]}" >&2
    echo "       run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "error: the Swift toolchain (swift 6) is not on PATH; install it from swift.org and retry" >&2
  exit 1
fi
