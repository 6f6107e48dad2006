package claude

import (
	"strings"
	"testing"

	"raymond/step"
)

// The advice for a refused credential names where it came from: a key is
// checked, a login is renewed. A key is not a login: telling its owner to
// "run claude once to log in" sends them the wrong way.
func TestAuthReason(t *testing.T) {
	tests := []struct {
		name string
		res  Result
		want []string
		not  []string
	}{
		{"a key from the environment, stopped at the first retry",
			Result{Outcome: AuthError, KeySource: "ANTHROPIC_API_KEY", KeyRefused: true, RetryStatus: 401},
			[]string{"the API key from ANTHROPIC_API_KEY was refused (HTTP 401): check it", "resume the run"},
			[]string{"log in"}},
		{"a key from the environment, with the CLI's result",
			Result{Outcome: AuthError, HasResult: true, KeySource: "ANTHROPIC_API_KEY", Text: "Invalid API key · Fix external API key"},
			[]string{"the API key from ANTHROPIC_API_KEY was refused (Invalid API key · Fix external API key)"},
			[]string{"log in"}},
		{"a key helper",
			Result{Outcome: AuthError, HasResult: true, KeySource: "apiKeyHelper", Text: "Invalid API key"},
			[]string{"apiKeyHelper was refused", "check the helper"}, []string{"log in"}},
		{"no key: a login",
			Result{Outcome: AuthError, HasResult: true, KeySource: "none", Text: "Not logged in · Please run /login"},
			[]string{"claude is not logged in (Not logged in · Please run /login)", "Run `claude` once to log in"}, nil},
		{"a login's managed key",
			Result{Outcome: AuthError, HasResult: true, KeySource: "/login managed key", Text: "Invalid API key"},
			[]string{"claude is not logged in", "log in"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := Neutral(&tc.res, step.Request{})
			eq(t, "Outcome", out.Outcome, step.Unusable)
			for _, w := range tc.want {
				if !strings.Contains(out.Reason, w) {
					t.Errorf("reason %q lacks %q", out.Reason, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out.Reason, w) {
					t.Errorf("reason %q has %q", out.Reason, w)
				}
			}
		})
	}
}
