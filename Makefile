# The commands a person types; CI (.ci/run) calls the same targets.
GO        ?= go
BIN       ?= bin
VERSION   ?= $(shell git describe --tags --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME  ?= 10s
PKGS      := ./...

.PHONY: all build demo test check race fmt-check vet staticcheck tidy-check bench fuzz clean

all: build

## build: the raymond binary and the fake claude used by tests, into ./bin
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/raymond ./cmd/raymond
	$(GO) build -o $(BIN)/fake-claude ./claude/fakeclaude/cmd/fake-claude

## demo: build raymond and run the bundled demo workflow offline (scripted replies, no model)
demo: build
	$(BIN)/raymond run workflows/demo --replies workflows/demo/replies.yaml

## test: the README's test command: everything CI checks
test: check

## check: exactly what CI runs
check: fmt-check vet staticcheck race tidy-check

race:
	@command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || \
		echo "note: no chromium on PATH: the HTML report's browser test is skipped (CI installs it; see README)"
	$(GO) test -race -count=1 $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

staticcheck:
	$(GO) tool staticcheck $(PKGS)

tidy-check:
	$(GO) mod tidy -diff

## bench: every benchmark, with memory statistics
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## fuzz: a short run of every fuzz target (FUZZTIME each; e.g. make fuzz FUZZTIME=1m)
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

clean:
	rm -rf $(BIN)
