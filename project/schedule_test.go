package project

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServeScheduleConfig(t *testing.T) {
	text := `[serve]
addr = "127.0.0.1:1"

[[serve.schedule]]
workflow = "nightly"
cron = "0 3 * * *"
timezone = "Europe/Paris"
missed = "once"
input = "the night's work"
budget = 2

[[serve.schedule]]
name = "often"
workflow = "nightly"
cron = "@every 10m"
overlap = "allow"
`
	s, err := ParseConfig("c.toml", []byte(text))
	require.NoError(t, err)
	require.Len(t, s.Serve.Schedules, 2)
	first := s.Serve.Schedules[0]
	assert.Equal(t, "nightly", first.Name, "the name defaults to the workflow's id")
	assert.Equal(t, "Europe/Paris", first.Timezone)
	assert.Equal(t, MissedOnce, first.Missed)
	require.NotNil(t, first.Input)
	assert.Equal(t, "the night's work", *first.Input)
	require.NotNil(t, first.Budget)
	assert.Equal(t, 2.0, *first.Budget)
	assert.Equal(t, "often", s.Serve.Schedules[1].Name)
	assert.Equal(t, OverlapAllow, s.Serve.Schedules[1].Overlap)
}

func TestServeScheduleConfigErrors(t *testing.T) {
	entry := "[serve]\n\n[[serve.schedule]]\nworkflow = \"w\"\n"
	tests := []struct {
		name, text string
		want       []string
	}{
		{name: "bad cron", text: entry + "cron = \"0 3 * *\"\n", want: []string{"c.toml:5:", `cron "0 3 * *"`, "five fields"}},
		{name: "six fields", text: entry + "cron = \"0 0 3 * * *\"\n", want: []string{"c.toml:5:", "five fields"}},
		{name: "bad descriptor", text: entry + "cron = \"@sometimes\"\n", want: []string{"c.toml:5:", "@sometimes"}},
		{name: "too often", text: entry + "cron = \"@every 5s\"\n", want: []string{"c.toml:5:", "more than once a minute"}},
		{name: "zone in the cron", text: entry + "cron = \"CRON_TZ=UTC 0 3 * * *\"\n", want: []string{"c.toml:5:", `timezone = "UTC"`}},
		{name: "bad timezone", text: entry + "cron = \"@daily\"\ntimezone = \"Mars/Base\"\n", want: []string{"c.toml:6:", `timezone "Mars/Base"`, "IANA"}},
		{name: "bad missed", text: entry + "cron = \"@daily\"\nmissed = \"all\"\n", want: []string{"c.toml:6:", `missed must be skip or once, not "all"`}},
		{name: "bad overlap", text: entry + "cron = \"@daily\"\noverlap = \"queue\"\n", want: []string{"c.toml:6:", `overlap must be skip or allow`}},
		{name: "bad budget", text: entry + "cron = \"@daily\"\nbudget = -1\n", want: []string{"c.toml:6:", "positive"}},
		{name: "typo", text: entry + "cron = \"@daily\"\ntimezon = \"UTC\"\n", want: []string{"c.toml:6:", "serve.schedule.timezon; did you mean serve.schedule.timezone?"}},
		{name: "no cron", text: entry, want: []string{"c.toml:3:", "has no cron"}},
		{name: "no workflow", text: "[[serve.schedule]]\ncron = \"@daily\"\n", want: []string{"c.toml:1:", "has no workflow"}},
		{name: "same name", text: entry + "cron = \"@daily\"\n" + strings.TrimPrefix(entry, "[serve]\n\n") + "cron = \"@hourly\"\n", want: []string{"c.toml:6:", `two [[serve.schedule]] are named "w"`}},
		{name: "a table", text: "[serve.schedule]\nworkflow = \"w\"\n", want: []string{"serve.schedule must be an array of tables"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("c.toml", []byte(tt.text))
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestParseCron(t *testing.T) {
	from := time.Date(2026, 3, 28, 22, 30, 0, 0, time.UTC)
	tests := []struct {
		cron, tz string
		want     time.Time
	}{
		{"0 3 * * *", "UTC", time.Date(2026, 3, 29, 3, 0, 0, 0, time.UTC)},
		// 03:00 in Paris on the night summer time starts is 01:00 UTC.
		{"0 3 * * *", "Europe/Paris", time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)},
		{"@hourly", "UTC", time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC)},
		{"@every 10m", "", from.Add(10 * time.Minute)},
		{"*/15 * * * 1-5", "UTC", time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC)}, // the 28th is a Saturday
	}
	for _, tt := range tests {
		s, err := ParseCron(tt.cron, tt.tz)
		require.NoError(t, err, tt.cron)
		assert.True(t, tt.want.Equal(s.Next(from)), "%s in %q: got %s, want %s", tt.cron, tt.tz, s.Next(from), tt.want)
	}
}

func TestServeHookConfig(t *testing.T) {
	text := `[[serve.hook]]
name = "github"
workflow = "fix"
secret_file = ".raymond/github.secret"
filter = ["action == labeled", "label.name == raymond"]
input = "Fix issue #{{.issue.number}}: {{.issue.title}}"
budget = 3
`
	s, err := ParseConfig("c.toml", []byte(text))
	require.NoError(t, err)
	require.Len(t, s.Serve.Hooks, 1)
	h := s.Serve.Hooks[0]
	assert.Equal(t, "github", h.Name)
	assert.Equal(t, ".raymond/github.secret", h.SecretFile)
	require.Len(t, h.Filter, 2)
	assert.Equal(t, []string{"label", "name"}, h.Filter[1].Path)
	var b strings.Builder
	var payload any
	dec := json.NewDecoder(strings.NewReader(`{"issue": {"number": 42, "title": "Crash"}}`))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&payload))
	require.NoError(t, h.Input.Execute(&b, payload))
	assert.Equal(t, "Fix issue #42: Crash", b.String(), "numbers print as they were sent")
	err = h.Input.Execute(&b, map[string]any{})
	assert.ErrorContains(t, err, "issue", "a key the payload lacks is an error, not <no value>")
}

func TestServeHookConfigErrors(t *testing.T) {
	head := "[[serve.hook]]\nname = \"gh\"\nworkflow = \"w\"\nsecret_file = \"s\"\n"
	tests := []struct {
		name, text string
		want       []string
	}{
		{name: "bad template", text: head + "input = \"Fix {{.issue.number}\"\n", want: []string{"c.toml:5:", "serve.hook.input is not a valid template"}},
		{name: "bad filter", text: head + "filter = \"action is labeled\"\n", want: []string{"c.toml:5:", `filter "action is labeled" is not a condition`}},
		{name: "bad filter value", text: head + "filter = ['action == \"x']\n", want: []string{"c.toml:5:", "not a well-formed JSON string"}},
		{name: "no secret", text: "[[serve.hook]]\nname = \"gh\"\nworkflow = \"w\"\n", want: []string{"c.toml:1:", "has no secret_file", "openssl rand"}},
		{name: "bad name", text: "[[serve.hook]]\nname = \"a/b\"\n", want: []string{"c.toml:2:", `serve.hook.name "a/b"`}},
		{name: "typo", text: head + "fliter = \"x\"\n", want: []string{"c.toml:5:", "did you mean serve.hook.filter?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("c.toml", []byte(tt.text))
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestConditionMatch(t *testing.T) {
	var payload any
	dec := json.NewDecoder(strings.NewReader(`{"action": "labeled", "number": 7, "draft": false,
		"issue": {"title": "Crash on start", "labels": [{"name": "bug"}, {"name": "raymond"}], "tags": ["a", "b"]}}`))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&payload))
	tests := []struct {
		cond string
		want bool
	}{
		{"action == labeled", true},
		{"action == opened", false},
		{"action != opened", true},
		{"action != labeled", false},
		{"number == 7", true},
		{"draft == false", true},
		{"issue.labels.*.name == raymond", true},
		{"issue.labels.*.name == docs", false},
		{"issue.labels.*.name != bug", false},
		{"issue.title contains Crash", true},
		{`issue.title == "Crash on start"`, true},
		{"issue.tags contains b", true},
		{"issue.tags contains c", false},
		{"missing.key == x", false},
		{"missing.key != x", true},
	}
	for _, tt := range tests {
		c, err := ParseCondition(tt.cond)
		require.NoError(t, err, tt.cond)
		assert.Equal(t, tt.want, c.Match(payload), tt.cond)
	}
}

func TestServeEntriesLines(t *testing.T) {
	text := "[serve]\n\n[[serve.schedule]]\ncron = \"@daily\"\nworkflow = \"a\"\n\n[[serve.hook]]\nname = \"h\"\nsecret_file = \"s\"\nworkflow = \"b\"\n"
	s, err := ParseConfig("c.toml", []byte(text))
	require.NoError(t, err)
	assert.Equal(t, 5, s.Serve.Schedules[0].Line)
	assert.Equal(t, 10, s.Serve.Hooks[0].Line)
}
