# The commands a person types; CI (.ci/run) calls the same targets.
GO        ?= go
BIN       ?= bin
VERSION   ?= $(shell git describe --tags --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME  ?= 10s
PKGS      := ./...
# The Claude Code CLI the real-CLI tier runs (test-real-claude), from the npm
# registry. Move it with: make test-real-claude CLAUDE_CODE_VERSION=x.y.z
CLAUDE_CODE_VERSION ?= 2.1.330
CLAUDE_CODE_DIR     ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/raymond/claude-code/$(CLAUDE_CODE_VERSION)
CLAUDE_CODE         := $(CLAUDE_CODE_DIR)/node_modules/.bin/claude

.PHONY: all build demo test check race fmt-check vet staticcheck tidy-check bench fuzz clean test-real-claude

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
	$(GO) test -race -count=1 -timeout 25m $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

staticcheck:
	$(GO) tool staticcheck $(PKGS)

tidy-check:
	$(GO) mod tidy -diff

## test-real-claude: the tier that drives raymond with the real Claude Code CLI
## (CLAUDE_CODE_VERSION, installed from npm into CLAUDE_CODE_DIR once), its API
## calls answered by the stand-in on loopback: no key, no network, no model
test-real-claude: $(CLAUDE_CODE)
	RAYMOND_REAL_CLAUDE=$(CLAUDE_CODE) RAYMOND_REQUIRE_REAL_CLAUDE=1 \
		$(GO) test -count=1 -timeout 30m ./realclaude

$(CLAUDE_CODE):
	@command -v npm >/dev/null 2>&1 || { echo "test-real-claude needs npm (Node.js) to install @anthropic-ai/claude-code" >&2; exit 1; }
	npm install --prefix $(CLAUDE_CODE_DIR) --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION)
	@v=$$($(CLAUDE_CODE) --version) && case "$$v" in $(CLAUDE_CODE_VERSION)*) echo "installed $$v";; \
		*) echo "$(CLAUDE_CODE) says $$v, not $(CLAUDE_CODE_VERSION)" >&2; rm -rf $(CLAUDE_CODE_DIR); exit 1;; esac

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
