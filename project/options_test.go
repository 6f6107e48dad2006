package project

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNewOptionsLayers(t *testing.T) {
	cfg := &Settings{Model: ptr("sonnet"), Budget: ptr(4.0), Claude: ptr("/cfg"), Quiet: ptr(true)}
	p := &Project{Dir: "/p", Config: cfg}
	o, budget := p.NewOptions(Given{Settings: Settings{Model: ptr("opus")}, ClaudeEnv: "/env"})
	assert.Equal(t, "opus", o.Model, "given beats config")
	assert.Equal(t, 4.0, budget, "config fills what is not given")
	assert.Equal(t, "/env", o.ClaudePath, "RAYMOND_CLAUDE beats config")
	assert.True(t, o.Debug, "debug is on by default")
	assert.Equal(t, "/p", o.ProjectDir)
	assert.True(t, p.Quiet(Settings{}))
	assert.False(t, p.Quiet(Settings{Quiet: ptr(false)}))

	o, _ = p.NewOptions(Given{Settings: Settings{Model: ptr("opus,sonnet")}})
	assert.Equal(t, "opus", o.Model, "a list: its first")
	assert.Equal(t, []string{"sonnet"}, o.FallbackModels, "a list: the rest")
	cfgList, err := ParseConfig("c.toml", []byte(`model = ["haiku", "sonnet"]`))
	assert.NoError(t, err)
	o, _ = (&Project{Dir: "/p", Config: cfgList}).NewOptions(Given{})
	assert.Equal(t, "haiku", o.Model)
	assert.Equal(t, []string{"sonnet"}, o.FallbackModels)

	o, budget = (&Project{Dir: "/q"}).NewOptions(Given{})
	assert.Zero(t, budget, "no config is no budget")
	assert.Empty(t, o.ClaudePath)
}
