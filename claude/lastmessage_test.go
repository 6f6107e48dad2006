package claude

import (
	"bufio"
	"os"
	"slices"
	"testing"
)

// TestLastMessage: the decoder keeps the uuid of the stream's last assistant
// line, which --resume-session-at takes to branch the session there again.
func TestLastMessage(t *testing.T) {
	f, err := os.Open(fixture(t, "success.stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := NewDecoder(func(Event) {})
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		d.Line(sc.Bytes())
	}
	if got, want := d.Result().LastMessage, "94410686-2bd9-45fe-8e70-5ad4a9c92411"; got != want {
		t.Fatalf("LastMessage = %q, want %q", got, want)
	}
}

// TestArgsResumeAt: a branch at a message passes --resume-session-at beside
// --resume, and a resume at a message without a fork is refused.
func TestArgsResumeAt(t *testing.T) {
	argv, _ := Args(Request{Prompt: "p", Resume: "s", ResumeAt: "u", Fork: true})
	if i := slices.Index(argv, "--resume-session-at"); i < 0 || argv[i+1] != "u" || !slices.Contains(argv, "--fork-session") {
		t.Fatalf("argv %q lacks --resume-session-at u with --fork-session", argv)
	}
	if err := (Request{Prompt: "p", Resume: "s", ResumeAt: "u"}).validate(); err == nil {
		t.Fatal("a resume at a message without a fork was accepted")
	}
}
