package notify

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
)

// The events a target may ask for, in the order the docs list them.
const (
	// EventAsk: an agent asked a person (an <ask> opened).
	EventAsk = "ask"
	// EventFailed: the run ended failed.
	EventFailed = "failed"
	// EventBudget: the run stopped at its budget.
	EventBudget = "budget"
	// EventWaiting: the run waits for a usage limit to reset.
	EventWaiting = "waiting"
	// EventCompleted: the run completed.
	EventCompleted = "completed"
)

// Events are every event, the default of a target that names none.
var Events = []string{EventAsk, EventFailed, EventBudget, EventWaiting, EventCompleted}

// The formats of a target's requests.
const (
	FormatJSON  = "json"
	FormatNtfy  = "ntfy"
	FormatSlack = "slack"
)

// Formats are the formats a target may use.
var Formats = []string{FormatJSON, FormatNtfy, FormatSlack}

// Keys are the keys of a [[notify]] entry, in the order errors list them.
var Keys = []string{"name", "url", "events", "format", "secret_file", "include_text", "timeout", "page_url", "allow_insecure"}

// DefaultTimeout bounds one request to a target that sets no timeout.
const DefaultTimeout = 10 * time.Second

// Target is one [[notify]] entry of config.toml: where notifications go,
// which, and in what form.
type Target struct {
	// Name names the target in warnings; "" names it by its URL's host.
	Name string
	// URL is where requests go: https, or http to a loopback address
	// (AllowInsecure lifts that).
	URL string
	// Events are the events sent; empty means every one (Events).
	Events []string
	// Format is json (""), ntfy or slack.
	Format string
	// SecretFile, for the json format, is a file whose content (trimmed of
	// surrounding white space) is the key of the body's HMAC-SHA256
	// signature. Relative to the project folder unless absolute; the
	// caller resolves it (New reads it).
	SecretFile string
	// IncludeText sends the question of an ask and the result of a
	// completed run; without it no text a model or a person wrote leaves
	// the machine.
	IncludeText bool
	// Timeout bounds one request; 0 is DefaultTimeout.
	Timeout time.Duration
	// PageURL is the daemon's page as the receiver's reader reaches it
	// (https://raymond.example/); an ask's link opens the run there. ""
	// uses the address raymond serve listens on, and from the command line
	// gives no link.
	PageURL string
	// AllowInsecure allows http:// to an address other than loopback.
	AllowInsecure bool
}

// KeyError is a problem with one key of a target.
type KeyError struct {
	Key string
	Err error
}

func (e *KeyError) Error() string { return e.Err.Error() }

func (e *KeyError) Unwrap() error { return e.Err }

func keyErr(key, format string, args ...any) error {
	return &KeyError{Key: key, Err: fmt.Errorf(format, args...)}
}

// Check says what is wrong with t, as a *KeyError naming the key; what
// names the entry in the message (notify[0], or its name).
func (t *Target) Check(what string) error {
	if t.URL == "" {
		return keyErr("url", "%s has no url; give the address notifications are sent to", what)
	}
	if err := checkURL(t.URL, t.AllowInsecure); err != nil {
		return keyErr("url", "%s.url %s", what, err)
	}
	if t.PageURL != "" {
		if u, err := url.Parse(t.PageURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return keyErr("page_url", "%s.page_url %q is not an http or https address such as https://raymond.example/", what, t.PageURL)
		}
	}
	for _, e := range t.Events {
		if !slices.Contains(Events, e) {
			return keyErr("events", "%s.events: unknown event %q; the events are %s", what, e, strings.Join(Events, ", "))
		}
	}
	if t.Format != "" && !slices.Contains(Formats, t.Format) {
		return keyErr("format", "%s.format: unknown format %q; give %s", what, t.Format, strings.Join(Formats, ", "))
	}
	if t.SecretFile != "" && t.Format != "" && t.Format != FormatJSON {
		return keyErr("secret_file", "%s.secret_file signs the json format only, not %s; remove it or set format = \"json\"", what, t.Format)
	}
	if t.Timeout < 0 {
		return keyErr("timeout", "%s.timeout is negative", what)
	}
	return nil
}

// checkURL accepts https, and http to a loopback host unless insecure
// allows any host.
func checkURL(raw string, insecure bool) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not an address: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: only https:// (or http:// to this machine) is allowed", raw)
	case u.Host == "":
		return fmt.Errorf("%q has no host", raw)
	case u.User != nil:
		return fmt.Errorf("%q holds a user name or password; raymond does not send credentials in addresses", Redact(raw))
	case u.Scheme == "http" && !insecure && !loopback(u.Hostname()):
		return fmt.Errorf("%q is plain http to another machine, where anyone on the way can read it; use https, or set allow_insecure = true", Redact(raw))
	}
	return nil
}

// loopback says whether host names this machine's loopback interface.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Redact is an address as warnings show it: its scheme and host only. The
// path of an ntfy topic or a Slack webhook is its secret.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(an address)"
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// Label names t in warnings: its name, else its redacted address.
func (t *Target) Label() string {
	if t.Name != "" {
		return t.Name
	}
	return Redact(t.URL)
}

// wants says whether t sends event.
func (t *Target) wants(event string) bool {
	return len(t.Events) == 0 || slices.Contains(t.Events, event)
}
