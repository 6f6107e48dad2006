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

	o, budget = (&Project{Dir: "/q"}).NewOptions(Given{})
	assert.Zero(t, budget, "no config is no budget")
	assert.Empty(t, o.ClaudePath)
}
