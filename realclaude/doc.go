// Package realclaude holds the tier of end-to-end tests that drive the raymond
// binary with the real Claude Code CLI. The CLI's Messages API calls go to the
// project's stand-in (package standin) on loopback, with a placeholder key: no
// credential, no network, no model.
//
// The tests run when RAYMOND_REAL_CLAUDE names the CLI's executable and skip
// otherwise, or fail when RAYMOND_REQUIRE_REAL_CLAUDE=1. `make
// test-real-claude` installs the pinned CLI version from the npm registry into
// a cache folder and runs them. The seven defects of issue 20, which the
// fake hid, each have a scenario here that fails if one comes back.
//
// The package has no code of its own beyond this comment: everything is in
// its tests.
package realclaude
