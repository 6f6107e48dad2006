package scripted

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
)

// load writes a replies file to a new folder and loads it.
func load(t *testing.T, yaml string) (*Runner, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "replies.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	r, err := Load(path)
	require.NoError(t, err)
	return r, dir
}

// TestWaitForReleased: a reply with wait_for waits after its init line
// until the file exists, relative to the replies file's folder and with
// the step's template values filled in; then it streams and answers.
func TestWaitForReleased(t *testing.T) {
	r, dir := load(t, `
replies:
  S.md:
    - {text: "{{item}} done", say: ["looking"], wait_for: "release/{{item}}"}
`)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "release"), 0o755))
	var saidBefore []string
	rec := &recorder{}
	rec.onEvent = func(e claude.Event) {
		if e.Kind == claude.EventInit {
			// The step now waits; what it said so far, and the release.
			saidBefore = rec.texts(claude.EventText)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "release", "a"), nil, 0o644))
		}
	}
	res, err := r.play(context.Background(), request("S.md", map[string]string{"item": "a"}), rec.handler())
	require.NoError(t, err)
	assert.Equal(t, claude.Success, res.Outcome)
	assert.Equal(t, "a done", res.Text)
	assert.Empty(t, saidBefore, "the say blocks come after the wait")
	assert.Equal(t, []string{"looking", "a done"}, rec.texts(claude.EventText))
}

// TestWaitForCanceled: a step canceled while it waits for its file ends
// as canceled, having written only its init line, and gives its reply back.
func TestWaitForCanceled(t *testing.T) {
	r, _ := load(t, "replies:\n  S.md: [{text: one, say: [one], wait_for: never}]\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{onEvent: func(e claude.Event) {
		if e.Kind == claude.EventInit {
			cancel()
		}
	}}
	res, err := r.play(ctx, request("S.md", nil), rec.handler())
	require.NoError(t, err)
	assert.Equal(t, claude.Canceled, res.Outcome)
	assert.Equal(t, "SIGTERM", res.Signal)
	assert.Len(t, rec.lines, 1, "the init line only")
	assert.Equal(t, []Unused{{State: "S.md", Index: 1, Text: "one", Used: 0, Times: 1}}, r.Unused())
}

// TestWaitForAbsolute: an absolute wait_for is used as it is.
func TestWaitForAbsolute(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "go")
	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	r, _ := load(t, "replies:\n  S.md: [{text: one, wait_for: '"+gate+"'}]\n")
	assert.Equal(t, "one", answer(t, r, "S.md"))
}

func TestWaitForErrors(t *testing.T) {
	for yaml, want := range map[string]string{
		"replies:\n  W: [{text: a, wait_for: ''}]\n": "replies.yaml: W reply 1: wait_for: must name a file, such as go or release/{{item}}",
		"replies:\n  W: [{text: a, wait_for: 3}]\n":  "replies.yaml: W reply 1: wait_for: 3 is not a text; quote it",
	} {
		_, err := Parse("replies.yaml", []byte(yaml))
		assert.EqualError(t, err, want)
	}
}
