package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	p, err := Open(dir)
	require.NoError(t, err)
	assert.Equal(t, dir, p.Dir)
	assert.Equal(t, &Settings{}, p.Config, "no config file is an empty config")
	assert.Equal(t, filepath.Join(dir, ".raymond", "state"), p.Store.Dir)
	assert.NoDirExists(t, p.Store.Dir, "Open creates nothing")

	runs, err := p.Runs()
	require.NoError(t, err, "a project without a state folder has no runs")
	assert.Empty(t, runs)

	require.NoError(t, p.Init())
	assert.DirExists(t, p.Store.Dir)
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, ErrNotFolder)

	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = Open(file)
	require.ErrorIs(t, err, ErrNotFolder)

	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".raymond"), 0o755))
	require.NoError(t, os.WriteFile(ConfigPath(dir), []byte("model = 1\n"), 0o644))
	_, err = Open(dir)
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, ConfigPath(dir), ce.Path)
	assert.Equal(t, 1, ce.Line)
}

func TestOfTranscript(t *testing.T) {
	dir, ok := OfTranscript(filepath.Join("/p", ".raymond", "debug", "r1"))
	assert.True(t, ok)
	assert.Equal(t, "/p", dir)
	_, ok = OfTranscript("/elsewhere/debug/r1")
	assert.False(t, ok)
}
