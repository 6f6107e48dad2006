package workflow

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReminder(t *testing.T) {
	p := Policy{Rules: []Rule{
		{Tag: "goto", Target: "REVIEW.md"},
		{Tag: "reset"},
		{Tag: "call", Target: "RESEARCH.md", Return: "SUMMARIZE.md"},
		{Tag: "function", Target: "F.md"},
		{Tag: "fork", Target: "WORKER.md", Next: "JOIN.md"},
		{Tag: "fork", Target: "SOLO.md"},
		{Tag: "result", Payload: ptr(" done ")},
		{Tag: "result"},
		{Tag: "result"},
		{Tag: "goto", Target: `Q"&.md`},
	}}
	got := Reminder(errors.New("no transition tag found."), p)
	for _, want := range []string{
		"Your last answer could not be used: no transition tag found.\n",
		"<goto>REVIEW.md</goto>",
		"<reset>…</reset>",
		`<call return="SUMMARIZE.md">RESEARCH.md</call>`,
		`<function return="…">F.md</function>`,
		`<fork next="JOIN.md">WORKER.md</fork>`,
		`<fork next="…">SOLO.md</fork>`,
		"<result>done</result>",
		"<result>…</result>",
		`<goto>Q"&.md</goto>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("reminder does not contain %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, "Answer again with exactly one of these tags, or with several <fork> tags to start several agents.\n") {
		t.Errorf("reminder of a state that may fan out does not end by asking for one tag or several forks:\n%s", got)
	}
	if n := strings.Count(got, "<result>…</result>"); n != 1 {
		t.Errorf("a repeated rule is listed %d times:\n%s", n, got)
	}
	if n := strings.Count(got, "\n"); n > 15 {
		t.Errorf("reminder has %d lines, want a short one:\n%s", n, got)
	}
}

func TestReminderWithoutForks(t *testing.T) {
	got := Reminder(errors.New("no transition tag"), Policy{Rules: []Rule{{Tag: "goto", Target: "A.md"}, {Tag: "result"}}})
	want := "Your last answer could not be used: no transition tag.\n" +
		"The transitions this step accepts are:\n" +
		"  <goto>A.md</goto>\n" +
		"  <result>…</result>\n" +
		"Answer again with exactly one of these tags.\n"
	if got != want {
		t.Errorf("Reminder =\n%s\nwant\n%s", got, want)
	}
}

func TestReminderShortensTheReason(t *testing.T) {
	err := errors.New("malformed tag <goto x=\"" + strings.Repeat("y", 5000) + "\">\nA</goto>")
	got := Reminder(err, Policy{Rules: []Rule{{Tag: "goto", Target: "A.md"}}})
	if len(got) > 600 || strings.Count(got, "\n") != 4 {
		t.Errorf("reminder of %d bytes, %d lines:\n%s", len(got), strings.Count(got, "\n"), got)
	}
}

func TestReminderWithoutPolicy(t *testing.T) {
	got := Reminder(errors.New("several transition tags"), Policy{})
	want := "Your last answer could not be used: several transition tags.\n" +
		"End your answer with exactly one transition tag (goto, reset, call, function, fork, result, ask, call-workflow, function-workflow, fork-workflow, reset-workflow).\n"
	if got != want {
		t.Errorf("Reminder = %q, want %q", got, want)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{describe(tag("goto", "A.md", "input", "x")), "<goto>A.md</goto>"},
		{describe(tag("call", "A.md", "return", "B.md")), `<call return="B.md">A.md</call>`},
		{describe(tag("fork", "W.md", "item", "1")), "<fork>W.md</fork>"},
		{describe(tag("fork", "W.md", "next", "J.md")), `<fork next="J.md">W.md</fork>`},
		{describe(tag("result", strings.Repeat("é", 50))), "<result>" + strings.Repeat("é", 40) + "…</result>"},
	}
	for _, tt := range tests {
		if tt.in != tt.want {
			t.Errorf("describe = %q, want %q", tt.in, tt.want)
		}
	}
}

// A reminder is a process's argument: whatever the error quotes, it holds
// no NUL byte and is valid UTF-8.
func TestReminderSendable(t *testing.T) {
	p := Policy{Rules: []Rule{{Tag: "goto", Target: "A.md"}}}
	got := Reminder(errors.New("target \"A\x00B\" of <goto>A\x00B</goto> is wrong; caf\xe9"), p)
	if strings.IndexByte(got, 0) >= 0 || !utf8.ValidString(got) {
		t.Fatalf("reminder holds a NUL or is not UTF-8: %q", got)
	}
	if want := `Your last answer could not be used: target "A\x00B" of <goto>A\x00B</goto> is wrong; caf` + "\uFFFD.\n"; !strings.HasPrefix(got, want) {
		t.Errorf("reminder:\n %q\nwant prefix\n %q", got, want)
	}
}
