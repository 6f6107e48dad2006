package permission

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Read", []string{"Read"}},
		{"Read,Edit", []string{"Read", "Edit"}},
		{" Read ,  Edit\tGrep\n", []string{"Read", "Edit", "Grep"}},
		{"Bash(git log:*) Read", []string{"Bash(git log:*)", "Read"}},
		{"Bash(git log:*, git diff:*),Read", []string{"Bash(git log:*, git diff:*)", "Read"}},
		{"Bash(echo (a b))", []string{"Bash(echo (a b))"}},
		{",,", nil},
	}
	for _, tt := range tests {
		got, err := Split(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"Bash(git", "Bash)", "Read) Bash("} {
		if _, err := Split(bad); err == nil {
			t.Errorf("Split(%q) did not fail", bad)
		}
	}
}

func TestCheckRule(t *testing.T) {
	for _, ok := range []string{"Read", "Bash(git log:*)", "mcp__github", "Edit(docs/**)", "Unknown"} {
		if err := CheckRule(ok); err != nil {
			t.Errorf("CheckRule(%q): %v", ok, err)
		}
	}
	for rule, want := range map[string]string{
		"":           "empty",
		"  ":         "empty",
		"Bash(":      "never closed",
		"(ls)":       "names no tool",
		"Bash(ls)x":  "text after",
		"Read Edit":  "holds 2 rules",
		`"Bash(ls)"`: "holds its quote marks",
		// Passed after --allowedTools, a rule starting with - would be
		// one of claude's options: --model would change the model.
		"--model": "starts with -",
		"--":      "starts with -",
		"-x(ls)":  "starts with -",
	} {
		if err := CheckRule(rule); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckRule(%q) = %v, want %q", rule, err, want)
		}
	}
}

func TestKnown(t *testing.T) {
	for rule, want := range map[string]bool{"Read": true, "Bash(git log:*)": true, "mcp__srv__tool": true, "Raed": false, "bash": false} {
		if got := Known(rule); got != want {
			t.Errorf("Known(%q) = %v", rule, got)
		}
	}
}

func TestEffective(t *testing.T) {
	tests := []struct {
		runMode         string
		runSkips        bool
		stateMode, mode string
		skip, escalates bool
	}{
		{"acceptEdits", false, "", "acceptEdits", false, false},
		{"", true, "", "", true, false},
		{"acceptEdits", false, "plan", "plan", false, false},
		// A state's mode narrows a run that skips permissions.
		{"", true, "plan", "plan", false, false},
		// A state cannot skip permissions in a run that does not.
		{"acceptEdits", false, Bypass, Bypass, false, true},
		{"", true, Bypass, Bypass, false, false},
		{Bypass, false, Bypass, Bypass, false, false},
	}
	for _, tt := range tests {
		mode, skip := Effective(tt.runMode, tt.runSkips, tt.stateMode)
		if mode != tt.mode || skip != tt.skip {
			t.Errorf("Effective(%q, %v, %q) = %q, %v; want %q, %v", tt.runMode, tt.runSkips, tt.stateMode, mode, skip, tt.mode, tt.skip)
		}
		if got := Escalates(tt.runMode, tt.runSkips, tt.stateMode); got != tt.escalates {
			t.Errorf("Escalates(%q, %v, %q) = %v", tt.runMode, tt.runSkips, tt.stateMode, got)
		}
	}
}
