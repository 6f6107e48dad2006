package notify

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The headers of the json format.
const (
	// HeaderSignature is the body's HMAC-SHA256 with the target's secret,
	// as sha256=<hex> (the form GitHub's X-Hub-Signature-256 has).
	HeaderSignature = "X-Raymond-Signature-256"
	// HeaderEvent is the message's event.
	HeaderEvent = "X-Raymond-Event"
	// HeaderDelivery identifies one notification to one target; every
	// retry of it carries the same id, so a receiver can drop repeats.
	HeaderDelivery = "X-Raymond-Delivery"
)

// request is what is sent for one message to one target: the body and
// the headers, the same at every attempt.
type request struct {
	body   []byte
	header http.Header
}

// encode makes the request of m for t. secret signs the json format.
func encode(t *Target, m Message, secret []byte, delivery string) (request, error) {
	m = m.forTarget(t)
	h := http.Header{}
	h.Set("User-Agent", "raymond")
	var body []byte
	switch t.Format {
	case FormatNtfy:
		body = []byte(ntfyText(&m))
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Title", m.title())
		h.Set("Tags", ntfyTags[m.Event]+",raymond")
		h.Set("Priority", ntfyPriority[m.Event])
		if m.Link != "" {
			h.Set("Click", m.Link)
		}
	case FormatSlack:
		var err error
		if body, err = marshal(map[string]string{"text": slackText(&m)}); err != nil {
			return request{}, err
		}
		h.Set("Content-Type", "application/json")
	default:
		var err error
		if body, err = marshal(m); err != nil {
			return request{}, err
		}
		h.Set("Content-Type", "application/json")
		h.Set(HeaderEvent, m.Event)
		h.Set(HeaderDelivery, delivery)
		if len(secret) > 0 {
			h.Set(HeaderSignature, Sign(secret, body))
		}
	}
	return request{body: body, header: h}, nil
}

// Sign is the signature header's value for body under secret:
// sha256=<hex of HMAC-SHA256(secret, body)>.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// marshal encodes v as JSON without escaping <, > and &, which are common
// in questions and results.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ntfy's tags (emoji short codes) and priorities (1 to 5) per event.
var (
	ntfyTags = map[string]string{EventAsk: "question", EventFailed: "x", EventBudget: "moneybag",
		EventWaiting: "hourglass", EventCompleted: "white_check_mark"}
	ntfyPriority = map[string]string{EventAsk: "4", EventFailed: "4", EventBudget: "4",
		EventWaiting: "3", EventCompleted: "3"}
)

// ntfyText is the body of an ntfy message: the text, the question or
// result when included, how to answer.
func ntfyText(m *Message) string {
	var b strings.Builder
	b.WriteString(m.Text)
	if m.Question != nil {
		fmt.Fprintf(&b, "\n\n%s", *m.Question)
	}
	if m.Result != nil {
		fmt.Fprintf(&b, "\n\nResult: %s", *m.Result)
	}
	if m.Answer != "" {
		fmt.Fprintf(&b, "\n\nAnswer with: %s", m.Answer)
	}
	return b.String()
}

// slackText is the text of a Slack message: the text, the question or
// result, how to answer, and the link in Slack's <url|label> form.
func slackText(m *Message) string {
	var b strings.Builder
	b.WriteString(slackEscape(m.Text))
	if m.Question != nil {
		fmt.Fprintf(&b, "\n>%s", strings.ReplaceAll(slackEscape(*m.Question), "\n", "\n>"))
	}
	if m.Result != nil {
		fmt.Fprintf(&b, "\nResult:\n>%s", strings.ReplaceAll(slackEscape(*m.Result), "\n", "\n>"))
	}
	if m.Answer != "" {
		fmt.Fprintf(&b, "\nAnswer with: `%s`", slackEscape(m.Answer))
	}
	if m.Link != "" {
		label := "Open the run"
		if m.Event == EventAsk {
			label = "Answer on the page"
		}
		fmt.Fprintf(&b, "\n<%s|%s>", slackEscape(m.Link), label)
	}
	return b.String()
}

// slackEscape escapes the three characters Slack's text format reserves.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
