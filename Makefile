# LightWork: every target does its own set-up (scripts/ensure-deps.sh installs what is missing).
SWIFT      ?= swift
CONFIG     ?= release
BIN        := .build/$(CONFIG)/lightwork
TOOLS      := .build/$(CONFIG)/lightwork-tools
OUT        ?= out
# Tests run optimised (pixel loops are 25-30x slower in debug) with @testable imports enabled.
TESTFLAGS  := -c release -Xswiftc -enable-testing

.PHONY: all deps build run test bench samples films clean help

all: build

help:
	@echo "make run    install deps, build, convert Samples/ into ./$(OUT) and say where it went"
	@echo "make test   install deps (with Slurm for the cluster test), build and run the whole test suite"
	@echo "make bench  speed and memory against dcraw_emu (prints figures and ratios)"
	@echo "make samples regenerate Samples/ (DNG scene, truth, sRGB PNG)"
	@echo "make films  regenerate Profiles/films (catalog and lookup images) from FilmLookDesign"

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build -c $(CONFIG)

run: build
	@rm -rf $(OUT)
	$(BIN) convert Samples -o $(OUT); status=$$?; \
	echo; echo "Images:   $$(pwd)/$(OUT)/"; echo "Manifest: $$(pwd)/$(OUT)/manifest.json"; exit $$status

# --test adds Chromium (verify report test), Slurm and munge (cluster test).
test:
	@scripts/ensure-deps.sh --test
	$(SWIFT) test $(TESTFLAGS)

samples: build
	$(TOOLS) make-sample-dng -o Samples/scene.dng --seed 1 --truth Samples/scene.truth.json --srgb-png Samples/scene-srgb.png
	$(TOOLS) make-sample-dng -o Samples/scene-tungsten.dng --seed 1 --illuminant A --truth Samples/scene-tungsten.truth.json

films: build
	$(TOOLS) make-films Profiles/films

bench: build
	@scripts/ensure-deps.sh --bench
	@scripts/bench.sh $(CONFIG)

clean:
	rm -rf .build $(OUT) bench-out
