# LightWork: every target does its own set-up (scripts/ensure-deps.sh installs what is missing).
SWIFT      ?= swift
CONFIG     ?= release
BIN        := .build/$(CONFIG)/lightwork
TOOLS      := .build/$(CONFIG)/lightwork-tools
OUT        ?= out
# Swift is compiled for this machine's CPU (AVX2 and FMA units where it has them), as darktable builds
# unless BINARY_PACKAGE_BUILD: the pixel loops run about 1.4x faster. Output bytes are the same either way
# (Swift never fuses a multiply and an add on its own). PORTABLE=1 builds for any x86-64, to copy elsewhere.
ifeq ($(PORTABLE),)
CPUFLAGS   := $(if $(filter x86_64,$(shell uname -m)),-Xswiftc -target-cpu -Xswiftc native)
endif
# Tests run optimised (pixel loops are 25-30x slower in debug) with @testable imports enabled.
TESTFLAGS  := -c release -Xswiftc -enable-testing $(CPUFLAGS)
# Fuzzing (docs/fuzzing.md): seconds per target for `make fuzz` and for the short run `make test` ends with,
# and how many hostile files `make fuzz` converts in one batch.
FUZZ_SECONDS      ?= 60
FUZZ_TEST_SECONDS ?= 12
FUZZ_TARGETS      ?=
HOSTILE_COUNT     ?= 3000

.PHONY: all deps build run test fuzz bench samples films filters clean help portable man install deb

# Installing (make install PREFIX=/usr/local, make deb): a portable binary with the Swift runtime linked in
# statically, built apart from the development build so neither invalidates the other.
PREFIX     ?= /usr/local
DESTDIR    ?=
PORTABLE_BIN := .build/portable/release/lightwork
PKG        ?= build/package

all: build

help:
	@echo "make run    install deps, build, convert Samples/ into ./$(OUT) and say where it went"
	@echo "make test   install deps (with Chromium, Slurm and exiftool for the integration tests), build, run the whole test suite and each fuzz target briefly"
	@echo "make fuzz   every parser under libFuzzer for FUZZ_SECONDS each, then HOSTILE_COUNT damaged files in one batch"
	@echo "make bench  speed and memory against dcraw_emu (prints figures and ratios)"
	@echo "make install PREFIX=/usr/local [DESTDIR=]  the portable binary, data, man pages, completion, systemd unit"
	@echo "make deb    build/package/lightwork_VERSION_ARCH.deb (runs on Debian 12 without a Swift toolchain)"
	@echo "make samples regenerate Samples/ (DNG scene, truth, sRGB PNG)"
	@echo "make films  regenerate Profiles/films (catalog and lookup images) from FilmLookDesign"
	@echo "make filters regenerate Profiles/filters.json from the filters' descriptors (a test holds them equal)"

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build -c $(CONFIG) $(CPUFLAGS)

run: build
	@rm -rf $(OUT)
	$(BIN) convert Samples -o $(OUT); status=$$?; \
	echo; echo "Images:   $$(pwd)/$(OUT)/"; echo "Manifest: $$(pwd)/$(OUT)/manifest.json"; exit $$status

# --test adds Chromium (verify report test), Slurm and munge (cluster test) and exiftool (EXIF cross-check).
test:
	@scripts/ensure-deps.sh --test
	$(SWIFT) test $(TESTFLAGS)
	scripts/fuzz.sh $(FUZZ_TEST_SECONDS)

fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)
	LIGHTWORK_HOSTILE_COUNT=$(HOSTILE_COUNT) $(SWIFT) test $(TESTFLAGS) --filter HostileFilesTests

samples: build
	$(TOOLS) make-sample-dng -o Samples/scene.dng --seed 1 --truth Samples/scene.truth.json --srgb-png Samples/scene-srgb.png
	$(TOOLS) make-sample-dng -o Samples/scene-tungsten.dng --seed 1 --illuminant A --truth Samples/scene-tungsten.truth.json

films: build
	$(TOOLS) make-films Profiles/films

filters: build
	$(BIN) filters --json > Profiles/filters.json

bench: build
	@scripts/ensure-deps.sh --bench
	@scripts/bench.sh $(CONFIG)

# Any x86-64 (no -target-cpu native) and no Swift toolchain needed where it runs.
portable: deps
	@scripts/ensure-deps.sh --package
	$(SWIFT) build -c release --static-swift-stdlib --product lightwork --build-path .build/portable

man: portable
	scripts/make-man.sh $(PORTABLE_BIN) build/man

install: portable man
	install -Dm755 -s $(PORTABLE_BIN) $(DESTDIR)$(PREFIX)/bin/lightwork
	mkdir -p $(DESTDIR)$(PREFIX)/share/lightwork
	cp -R Profiles Samples $(DESTDIR)$(PREFIX)/share/lightwork/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m644 build/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions
	$(PORTABLE_BIN) completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/lightwork
	$(PORTABLE_BIN) completion zsh > $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_lightwork
	install -d $(DESTDIR)$(if $(filter /usr,$(PREFIX)),,$(PREFIX))/lib/systemd/system
	sed 's|/usr/local/bin/lightwork|$(PREFIX)/bin/lightwork|' contrib/systemd/lightwork-watch.service \
	  > $(DESTDIR)$(if $(filter /usr,$(PREFIX)),,$(PREFIX))/lib/systemd/system/lightwork-watch.service
	@echo "installed under $(DESTDIR)$(PREFIX)"

deb: portable
	@rm -rf $(PKG)/root $(PKG)/lightwork_*.deb   # a package of an earlier version is not this build's
	$(MAKE) install PREFIX=/usr DESTDIR=$(CURDIR)/$(PKG)/root
	scripts/make-deb.sh $(PKG)/root $(PKG)
	lintian --fail-on error $(PKG)/lightwork_*.deb

clean:
	rm -rf .build $(OUT) bench-out build
