package workflow

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestManifestSchedule(t *testing.T) {
	m, err := parseManifest("workflow.yaml", []byte("name: Nightly\nschedule:\n  cron: \"0 3 * * *\"\n  timezone: Europe/Paris\n  missed: once\n  overlap: allow\n  input: the night\n  budget: 2.5\n  name: nightly\n"))
	require.NoError(t, err)
	require.NotNil(t, m.Schedule)
	s := m.Schedule
	assert.Equal(t, "0 3 * * *", s.Cron)
	assert.Equal(t, "Europe/Paris", s.Timezone)
	assert.Equal(t, "once", s.Missed)
	assert.Equal(t, "allow", s.Overlap)
	assert.Equal(t, "nightly", s.Name)
	require.NotNil(t, s.Input)
	assert.Equal(t, "the night", *s.Input)
	require.NotNil(t, s.Budget)
	assert.Equal(t, 2.5, *s.Budget)
	assert.Equal(t, 2, s.Line)
	assert.Empty(t, m.Warnings)

	for text, want := range map[string]string{
		"schedule: daily\n":                 "workflow.yaml:1:1: schedule must be a mapping",
		"schedule:\n  timezone: UTC\n":      "workflow.yaml:1:1: schedule has no cron",
		"schedule:\n  cron: x\n  budget: a": "workflow.yaml:3:3: schedule.budget must be a number",
	} {
		_, err := parseManifest("workflow.yaml", []byte(text))
		assert.ErrorContains(t, err, want, text)
	}
	m, err = parseManifest("workflow.yaml", []byte("schedule:\n  cron: x\n  tz: UTC\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{`workflow.yaml:3: unknown key "tz" under schedule ignored`}, m.Warnings)
}
