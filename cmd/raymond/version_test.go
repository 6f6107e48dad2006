package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBuildVersionFromVCS: a go build without make's ldflags still names
// the commit the toolchain stamped, marked -dirty for a modified tree.
func TestBuildVersionFromVCS(t *testing.T) {
	defer func(v, c string, r func() (*debug.BuildInfo, bool)) { version, commit, readBuildInfo = v, c, r }(version, commit, readBuildInfo)
	version, commit = "", ""
	info := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "01fff8c0123456789abcdef0123456789abcdef0"},
		{Key: "vcs.modified", Value: "true"},
	}}
	readBuildInfo = func() (*debug.BuildInfo, bool) { return info, true }
	v, c := buildVersion()
	assert.Equal(t, "dev", v)
	assert.Equal(t, "01fff8c01234-dirty", c)

	info.Settings[2].Value = "false"
	info.Main.Version = "v0.0.0-20261128055140-01fff8c01234"
	v, c = buildVersion()
	assert.Equal(t, "v0.0.0-20261128055140-01fff8c01234", v)
	assert.Equal(t, "01fff8c01234", c)

	// make build's ldflags win.
	version, commit = "v1.2.3", "abc1234"
	v, c = buildVersion()
	assert.Equal(t, "v1.2.3", v)
	assert.Equal(t, "abc1234", c)

	// No stamp at all (-buildvcs=false): said, not guessed.
	version, commit = "", ""
	info.Settings, info.Main.Version = nil, "(devel)"
	v, c = buildVersion()
	assert.Equal(t, "dev", v)
	assert.Equal(t, "unknown", c)
}
