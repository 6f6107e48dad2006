package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func askMessage() Message {
	q := "Approve <Acme> & co?"
	return Message{Event: EventAsk, RunID: "r1", Workflow: "wf", Agent: "main", AskID: "ask_main_1", State: "START.md",
		Status: "asking", Text: "Run r1 (wf): agent main asks a question (ask_main_1) at START.md.",
		Link: "http://127.0.0.1:7777/#/runs/r1", Answer: "raymond answer r1 ask_main_1 'TEXT'",
		Question: &q, Time: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
}

// The json body is the documented shape; the signature is the HMAC of the
// exact bytes sent.
func TestJSON(t *testing.T) {
	secret := []byte("s3cret")
	r, err := encode(&Target{URL: "https://x.example/h"}, askMessage(), secret, "d1")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event":"ask","run_id":"r1","workflow":"wf","agent":"main","ask_id":"ask_main_1","state":"START.md","status":"asking",` +
		`"text":"Run r1 (wf): agent main asks a question (ask_main_1) at START.md.","link":"http://127.0.0.1:7777/#/runs/r1",` +
		`"answer_command":"raymond answer r1 ask_main_1 'TEXT'","time":"2026-11-28T09:00:00Z"}`
	if string(r.body) != want {
		t.Errorf("body\n%s\nwant\n%s", r.body, want)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(r.body)
	if got := r.header.Get(HeaderSignature); got != "sha256="+hex.EncodeToString(mac.Sum(nil)) || got != Sign(secret, r.body) {
		t.Errorf("signature %q", got)
	}
	if r.header.Get(HeaderEvent) != "ask" || r.header.Get(HeaderDelivery) != "d1" || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", r.header)
	}
	// No secret, no signature; include_text adds the question as is.
	r, _ = encode(&Target{URL: "https://x.example/h", IncludeText: true}, askMessage(), nil, "d1")
	if r.header.Get(HeaderSignature) != "" {
		t.Errorf("signed without a secret")
	}
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil || m["question"] != "Approve <Acme> & co?" {
		t.Errorf("question %v (%v)", m["question"], err)
	}
}

// Without include_text no question or result leaves, in any format.
func TestNoText(t *testing.T) {
	res := "the secret result"
	for _, format := range Formats {
		for _, m := range []Message{askMessage(), {Event: EventCompleted, RunID: "r1", Result: &res, Text: "done"}} {
			r, err := encode(&Target{URL: "https://x.example/h", Format: format}, m, nil, "d")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(r.body), "Acme") || strings.Contains(string(r.body), "secret") {
				t.Errorf("%s: text sent without include_text: %s", format, r.body)
			}
		}
	}
}

// ntfy: the text as the body, the headers ntfy reads.
func TestNtfy(t *testing.T) {
	r, err := encode(&Target{URL: "https://ntfy.sh/topic", Format: FormatNtfy, IncludeText: true}, askMessage(), nil, "d")
	if err != nil {
		t.Fatal(err)
	}
	want := "Run r1 (wf): agent main asks a question (ask_main_1) at START.md.\n\nApprove <Acme> & co?\n\nAnswer with: raymond answer r1 ask_main_1 'TEXT'"
	if string(r.body) != want {
		t.Errorf("body %q", r.body)
	}
	for k, v := range map[string]string{"Title": "raymond: r1 asks a question", "Tags": "question,raymond", "Priority": "4",
		"Click": "http://127.0.0.1:7777/#/runs/r1", "Content-Type": "text/plain; charset=utf-8", HeaderSignature: ""} {
		if got := r.header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
}

// Slack: {"text"} with its three characters escaped and the link as
// <url|label>; a target's page_url makes the link.
func TestSlack(t *testing.T) {
	m := askMessage()
	m.Link = ""
	r, err := encode(&Target{URL: "https://hooks.slack.com/x", Format: FormatSlack, IncludeText: true, PageURL: "https://r.example/base/"}, m, nil, "d")
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]string
	if err := json.Unmarshal(r.body, &body); err != nil || len(body) != 1 {
		t.Fatalf("body %s: %v", r.body, err)
	}
	want := "Run r1 (wf): agent main asks a question (ask_main_1) at START.md.\n>Approve &lt;Acme&gt; &amp; co?\n" +
		"Answer with: `raymond answer r1 ask_main_1 'TEXT'`\n<https://r.example/base/#/runs/r1|Answer on the page>"
	if body["text"] != want {
		t.Errorf("text\n%s\nwant\n%s", body["text"], want)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		t        Target
		key, err string
	}{
		{Target{}, "url", "notify[0] has no url"},
		{Target{URL: "ftp://x/"}, "url", `notify[0].url "ftp://x/": only https:// (or http:// to this machine) is allowed`},
		{Target{URL: "http://example.com/x"}, "url", "plain http to another machine"},
		{Target{URL: "https://u:p@example.com/x"}, "url", "holds a user name or password"},
		{Target{URL: "https://x/", Events: []string{"ask", "done"}}, "events", `unknown event "done"; the events are ask, failed, budget, waiting, completed`},
		{Target{URL: "https://x/", Format: "xml"}, "format", `unknown format "xml"; give json, ntfy, slack`},
		{Target{URL: "https://x/", Format: "ntfy", SecretFile: "s"}, "secret_file", "signs the json format only"},
		{Target{URL: "https://x/", PageURL: "x"}, "page_url", "not an http or https address"},
		{Target{URL: "https://x/", Timeout: -1}, "timeout", "negative"},
	} {
		err := c.t.Check("notify[0]")
		ke, ok := err.(*KeyError)
		if !ok || ke.Key != c.key || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: %v, want %s: %s", c.t, err, c.key, c.err)
		}
	}
	for _, ok := range []Target{
		{URL: "https://ntfy.sh/t"},
		{URL: "http://127.0.0.1:8080/hook"},
		{URL: "http://localhost/hook"},
		{URL: "http://[::1]/hook"},
		{URL: "http://example.com/x", AllowInsecure: true},
	} {
		if err := ok.Check("n"); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

func TestRedact(t *testing.T) {
	if got := Redact("https://hooks.slack.com/services/T/B/XYZ"); got != "https://hooks.slack.com/…" {
		t.Errorf("%q", got)
	}
}
