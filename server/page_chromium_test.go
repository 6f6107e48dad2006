//go:build unix

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/internal/chromium"
)

// pageDriver drives the page in headless Chromium as a person would:
// it clicks, types and waits for what shows. Everything it needs is the
// daemon's base URL and token, so the same helpers drive the real daemon.
type pageDriver struct {
	t           *testing.T
	ctx         context.Context
	base, token string
	// shots starts the paths of the screenshots: /tmp/page-NAME.png.
	shots string

	mu       sync.Mutex
	problems []string // console errors and exceptions, as they happened
}

// waitTimeout bounds one wait for something to show on the page.
const waitTimeout = 15 * time.Second

// newPageDriver starts chromium (or skips the test without it) and
// listens to the page's console; the browser goes when the test ends.
func newPageDriver(t *testing.T, base, token string) *pageDriver {
	t.Helper()
	bin := chromium.Binary(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true),
	)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), chromium.Timeout)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	t.Cleanup(func() {
		// Close the browser and wait for it; chromedp removes the profile
		// it made once the process is gone.
		_ = chromedp.Cancel(ctx)
		cancelBrowser()
		cancelAlloc()
		cancelTimeout()
	})
	d := &pageDriver{t: t, ctx: ctx, base: base, token: token, shots: "/tmp/page-"}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d.problem("exception: " + ev.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				d.problem("console." + string(ev.Type) + ": " + strings.Join(args, " "))
			}
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.LevelError {
				d.problem("log (" + string(ev.Entry.Source) + "): " + ev.Entry.Text + " " + ev.Entry.URL)
			}
		}
	})
	d.do(chromedp.Navigate("about:blank"))
	return d
}

func (d *pageDriver) problem(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.problems = append(d.problems, s)
}

// Problems are the console errors and exceptions seen so far.
func (d *pageDriver) Problems() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.problems...)
}

func (d *pageDriver) do(actions ...chromedp.Action) {
	d.t.Helper()
	if err := chromedp.Run(d.ctx, actions...); err != nil {
		d.t.Fatalf("chromium: %v\nconsole problems: %q", err, d.Problems())
	}
}

// open loads the page with the token in the address, as the URL raymond
// serve prints.
func (d *pageDriver) open(path string) {
	d.t.Helper()
	d.do(chromedp.Navigate(d.base+path+"#token="+d.token), chromedp.WaitReady("body", chromedp.ByQuery))
}

// until waits for the JavaScript function fn (called with args) to return
// true; what says what was awaited, for the failure.
func (d *pageDriver) until(what, fn string, args ...any) {
	d.t.Helper()
	var ok bool
	var err error
	for range 3 {
		err = chromedp.Run(d.ctx, chromedp.PollFunction(fn, &ok,
			chromedp.WithPollingArgs(args...), chromedp.WithPollingTimeout(waitTimeout), chromedp.WithPollingInterval(50*time.Millisecond)))
		// Right after a navigation chromedp may still hold the execution
		// context of the page before: ask again in the new one.
		if err == nil || !transient(err) {
			break
		}
	}
	if err != nil {
		var text string
		_ = chromedp.Run(d.ctx, chromedp.Evaluate(`document.body.innerText`, &text))
		d.t.Fatalf("waiting for %s: %v\nconsole problems: %q\nthe page reads:\n%s", what, err, d.Problems(), text)
	}
}

// waitText waits until the element sel shows text containing want.
func (d *pageDriver) waitText(sel, want string) {
	d.t.Helper()
	d.until(fmt.Sprintf("%s to show %q", sel, want),
		`(sel, want) => { const e = document.querySelector(sel); return !!e && !e.closest("[hidden]") && e.textContent.includes(want); }`,
		sel, want)
}

// waitGone waits until no element matches sel.
func (d *pageDriver) waitGone(sel string) {
	d.t.Helper()
	d.until(sel+" to go", `(sel) => document.querySelector(sel) === null`, sel)
}

// click clicks sel once it is visible. A live update may replace the
// element between finding it and clicking it: then, as a person would, it
// finds the new one and clicks again.
func (d *pageDriver) click(sel string) {
	d.t.Helper()
	var err error
	for range 3 {
		err = chromedp.Run(d.ctx, chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.Click(sel, chromedp.ByQuery))
		if err == nil || !transient(err) {
			break
		}
	}
	if err != nil {
		d.t.Fatalf("click %s: %v\nconsole problems: %q", sel, err, d.Problems())
	}
}

// transient tells the errors of chromedp that come from the page changing
// under it (a node replaced, a document navigated) rather than from a
// page that is wrong.
func transient(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Could not find node with given id") ||
		strings.Contains(s, "Cannot find context with specified id") ||
		strings.Contains(s, "Node is detached from document")
}

// typeIn types text into the field sel, key by key.
func (d *pageDriver) typeIn(sel, text string) {
	d.t.Helper()
	d.do(chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.SendKeys(sel, text, chromedp.ByQuery))
}

// choose picks the option of value in the select sel, as a person does
// with the select's list (which chromium draws outside the page).
func (d *pageDriver) choose(sel, value string) {
	d.t.Helper()
	var ok bool
	d.do(chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.Focus(sel, chromedp.ByQuery),
		chromedp.Evaluate(`((sel, value) => {
			const s = document.querySelector(sel);
			const i = Array.from(s.options).findIndex((o) => o.value === value);
			if (i < 0) return false;
			s.selectedIndex = i;
			s.dispatchEvent(new Event("input", { bubbles: true }));
			s.dispatchEvent(new Event("change", { bubbles: true }));
			return true;
		})(`+jsArgs(sel, value)+`)`, &ok))
	require.True(d.t, ok, "%s has no option %q", sel, value)
}

// jsArgs is args as a JavaScript argument list.
func jsArgs(args ...any) string {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return string(b[1 : len(b)-1])
}

// screenshot saves the whole page as /tmp/page-NAME.png (d.shots+NAME).
func (d *pageDriver) screenshot(name string) {
	d.t.Helper()
	var png []byte
	d.do(chromedp.FullScreenshot(&png, 100))
	require.NoError(d.t, os.WriteFile(d.shots+name+".png", png, 0o644))
}

// screenshotOf scrolls sel into view and saves the viewport as
// /tmp/page-NAME.png (d.shots+NAME): a full-page capture leaves out a sandboxed frame,
// which chromium draws in a process of its own.
func (d *pageDriver) screenshotOf(sel, name string) {
	d.t.Helper()
	var png []byte
	for range 3 {
		err := chromedp.Run(d.ctx, chromedp.ScrollIntoView(sel, chromedp.ByQuery), chromedp.CaptureScreenshot(&png))
		if err == nil {
			break
		}
		if !transient(err) {
			d.t.Fatalf("screenshot of %s: %v", sel, err)
		}
	}
	require.NoError(d.t, os.WriteFile(d.shots+name+".png", png, 0o644))
}

// hash is the page's location.hash.
func (d *pageDriver) hash() string {
	d.t.Helper()
	var h string
	d.do(chromedp.Evaluate(`location.hash`, &h))
	return h
}

func TestPageInChromium(t *testing.T) {
	const token = "T0KEN-for-the-page"
	fake := newFakeAPI(t, token)
	mux := http.NewServeMux()
	fake.routes(mux)
	mux.Handle("/", Page())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)

	d := newPageDriver(t, srv.URL, token)

	// Load with the token: it leaves the address bar, the lists fill in.
	d.open("/")
	d.waitText("#workflows [data-key=review] h3", "Code review")
	d.waitText("#steps", "steps 0 / 8")
	d.waitText("#spend", "$0.00 today of $10.00")
	assert.Equal(t, "", d.hash(), "the token stays in the address bar")

	// The broken workflow shows its error and cannot be launched.
	d.waitText("#workflows [data-key=broken] .findings", "1_START.md:3 <goto>NOPE.md</goto> names a state that does not exist")
	d.waitGone("#workflows [data-key=broken] form")

	// Launch: a refusal of the API shows its message; then the run starts.
	d.click("#workflows [data-key=review] summary")
	d.typeIn("#workflows [data-key=review] textarea", "feature/login")
	d.typeIn("#workflows [data-key=review] input[name=budget]", "2")
	d.typeIn("#workflows [data-key=review] input[name=model]", "opus-9")
	d.click("#workflows [data-key=review] button[type=submit]")
	d.waitText("#workflows [data-key=review] form", "no model opus-9: leave the model empty")
	d.screenshot("launch")
	d.typeIn("#workflows [data-key=review] input[name=model]", strings.Repeat(kb.Backspace, len("opus-9")))
	d.until("the model field emptied", `() => document.querySelector("#workflows [data-key=review] input[name=model]").value === ""`)
	d.click("#workflows [data-key=review] button[type=submit]")
	launched := receive(t, fake.launched)
	assert.Equal(t, map[string]any{"workflow": "review", "input": "feature/login", "budget": 2.0, "model": nil}, launched)
	id := fakeRunID(1)
	d.waitText("#run-id", id)
	assert.Equal(t, "#/runs/"+id, d.hash())
	d.waitText("#run-timeline", "run started, budget $2.00")
	d.waitText("#run-cost", "$0.00 spent of $2.00")

	// The detail follows the run's events.
	fake.event(id, map[string]any{"type": "step_started", "agent": "main", "state": "1_START.md", "seq": 1})
	d.waitText("#run-timeline", "step 1 1_START.md")
	fake.event(id, map[string]any{"type": "tool_use", "agent": "main", "tool": "Bash", "message": "git diff main...feature/login"})
	d.waitText("#run-agents tr[data-agent=main] .activity", "Bash: git diff main...feature/login")
	fake.event(id, map[string]any{"type": "text", "agent": "main", "message": "<script>alert(1)</script> Reading the diff."})
	d.waitText("#run-agents tr[data-agent=main] .activity", "<script>alert(1)</script> Reading the diff.")
	fake.update(id, func(r *fakeRun) {
		r.cost = 0.5
		r.agents[0]["steps"] = 1
		r.agents[0]["current_state"] = "2_REVIEW.md"
	})
	fake.event(id, map[string]any{"type": "step_ended", "agent": "main", "state": "1_START.md", "outcome": "ok", "cost_usd": 0.5, "duration_ms": 4200})
	fake.event(id, map[string]any{"type": "transition", "agent": "main", "tag": "goto", "target": "2_REVIEW.md"})
	d.waitText("#run-cost", "$0.50 spent of $2.00")
	d.waitText("#run-agents tr[data-agent=main]", "2_REVIEW.md")
	d.waitText("#run-timeline", "<goto> → 2_REVIEW.md")
	assert.Equal(t, "/report/"+id+"?exp=1&sig=test", receive(t, fake.reports), "the report loads in its frame")
	d.screenshotOf("#run-report", "report")

	// A lost stream: the page reconnects from the last event it saw,
	// misses nothing and repeats nothing.
	fake.dropStreams(id)
	fake.event(id, map[string]any{"type": "step_started", "agent": "main", "state": "2_REVIEW.md", "seq": 2})
	assert.Equal(t, "4", receive(t, fake.resumes), "Last-Event-ID of the reconnection")
	d.waitText("#run-timeline", "step 2 2_REVIEW.md")
	d.until("each event once in the timeline", `() => Array.from(document.querySelectorAll("#run-timeline li")).filter((li) => li.textContent.includes("step 1 1_START.md")).length === 1`)

	// An ask: answered from the run's page.
	fake.update(id, func(r *fakeRun) { r.status = "asking"; r.agents[0]["status"] = "asking" })
	fake.ask(&fakeAsk{runID: id, askID: "ask-1", agent: "main", state: "2_REVIEW.md",
		prompt: "Which database do the tests use?\n  - sqlite\n  - postgres", deadline: time.Now().Add(90 * time.Minute)})
	d.waitText("#run-asks [data-key='"+id+"/ask-1'] pre", "Which database do the tests use?")
	d.waitText("#run-asks [data-key='"+id+"/ask-1']", "Answer within 1h 29m")
	d.waitText("#run-timeline", "asks ask-1")
	d.waitText("#run-status", "asking")
	d.screenshot("run-ask")
	d.typeIn("#run-asks [data-key='"+id+"/ask-1'] textarea", "postgres")
	d.click("#run-asks [data-key='" + id + "/ask-1'] button[type=submit]")
	assert.Equal(t, "postgres", receive(t, fake.answers))
	d.waitGone("#run-asks [data-key='" + id + "/ask-1']")
	fake.update(id, func(r *fakeRun) { r.status = "running"; r.agents[0]["status"] = "running" })
	d.waitText("#run-status", "running")

	// Pause, which takes effect at the next step boundary, then resume
	// with a larger budget.
	d.click("#run-pause")
	assert.Equal(t, "pause", receive(t, fake.actions))
	d.waitText("#run-action-message", "Pausing")
	fake.update(id, func(r *fakeRun) { r.status = "paused"; r.agents[0]["status"] = "paused" })
	fake.event(id, map[string]any{"type": "paused", "status": "paused"})
	d.waitText("#run-status", "paused")
	d.waitText("#run-timeline", "paused")
	d.typeIn("#run-budget", "5")
	d.click("#run-resume")
	assert.Equal(t, "resume 5", receive(t, fake.actions))
	d.waitText("#run-status", "running")
	d.waitText("#run-cost", "$0.50 spent of $5.00")

	// A wait for the usage limit, with its countdown.
	fake.update(id, func(r *fakeRun) {
		r.status = "waiting"
		r.wait = map[string]any{"until": time.Now().Add(10 * time.Minute).Format(time.RFC3339), "reason": "You've hit your limit"}
	})
	d.waitText("#run-wait", "You've hit your limit")
	d.waitText("#run-wait-left", "9m")
	fake.update(id, func(r *fakeRun) { r.status = "running"; r.wait = nil })
	d.waitGone("#run-wait:not([hidden])")

	// The runs table, live; the filter by status.
	d.click("a[href='#/']")
	d.waitText("#runs tr[data-run='"+id+"']", "review")
	d.waitText("#runs tr[data-run='"+id+"'] .status", "running")
	d.waitText("#runs tr[data-run='"+id+"']", "$0.50 / $5.00")
	fake.update(id, func(r *fakeRun) { r.cost = 0.75 })
	d.waitText("#runs tr[data-run='"+id+"']", "$0.75 / $5.00")
	d.until("one row per run", `() => document.querySelectorAll("#runs tr").length === 1`)
	d.choose("#runs-filter", "completed")
	d.waitText("#runs-empty", "No run is completed.")
	d.choose("#runs-filter", "")
	d.waitText("#runs tr[data-run='"+id+"']", "review")

	assert.Empty(t, unexpected(d.Problems()), "the page wrote errors to the console")

	// An expired ask on the home page: 409 says so.
	fake.ask(&fakeAsk{runID: id, askID: "ask-2", agent: "main", state: "3_FIX.md", prompt: "Fix it now?", expired: true})
	d.typeIn("#asks [data-key='"+id+"/ask-2'] textarea", "yes")
	d.click("#asks [data-key='" + id + "/ask-2'] button[type=submit]")
	d.waitText("#asks [data-key='"+id+"/ask-2']", "This question expired or was already answered.")

	// The usage limit: a banner with a countdown. The gate is held until
	// the limit resets (held_until), but the daily cap is not reached: its
	// banner stays hidden.
	limitUntil := time.Now().Add(42 * time.Minute).Format(time.RFC3339)
	fake.setDaemon(func(m map[string]any) {
		m["usage_limit_until"] = limitUntil
		m["held_until"] = limitUntil
		m["steps_running"] = 1
		m["spend_today_usd"] = 0.75
	})
	d.waitText("#limit-banner", "Usage limit reached")
	d.waitText("#limit-left", "41m")
	d.waitText("#steps", "steps 1 / 8")
	d.until("no daily-cap banner under a usage limit alone", `() => document.querySelector("#held-banner").hidden`)
	d.screenshot("home")
	d.do(emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}))
	d.screenshot("home-dark")
	d.do(emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}))

	// The day's spend reaches the cap: its banner shows too.
	fake.setDaemon(func(m map[string]any) { m["spend_today_usd"] = 10.0 })
	d.waitText("#held-banner", "The daily spending cap is reached")
	fake.setDaemon(func(m map[string]any) {
		m["usage_limit_until"], m["held_until"], m["spend_today_usd"] = nil, nil, 0.75
	})
	d.waitGone("#held-banner:not([hidden])")

	// The run fails without a result: its page says none, not "none yet".
	fake.update(id, func(r *fakeRun) {
		r.status = "failed"
		r.agents[0]["status"] = "failed"
	})
	d.click("#runs a[href='#/runs/" + id + "']")
	d.waitText("#run-status", "failed")
	d.until("no result, and none to come", `() => document.querySelector("#run-result").textContent === "none"`)
	d.click("a[href='#/']")

	// The run ends; it can be deleted, after a confirmation.
	fake.update(id, func(r *fakeRun) {
		r.status = "completed"
		r.agents[0]["status"] = "completed"
		res := "Two findings, both fixed."
		r.result = &res
	})
	fake.closeAsks(id)
	fake.event(id, map[string]any{"type": "run_ended", "status": "completed"})
	d.click("#runs a[href='#/runs/" + id + "']")
	d.waitText("#run-status", "completed")
	d.waitText("#run-result", "Two findings, both fixed.")
	d.waitText("#run-timeline", "run ended: completed")
	d.screenshot("run")
	// A refused delete says why and leaves the run shown and followed.
	fake.mu.Lock()
	fake.refuseDelete = "the run is being copied: try again in a moment"
	fake.mu.Unlock()
	d.click("#run-delete")
	d.click("#run-delete-yes")
	assert.Equal(t, "delete refused", receive(t, fake.actions))
	d.waitText("#run-action-message", "try again in a moment")
	d.waitText("#run-status", "completed")
	d.waitText("#run-timeline", "run ended: completed")
	assert.Equal(t, "#/runs/"+id, d.hash())
	d.click("#run-delete")
	d.click("#run-delete-yes")
	assert.Equal(t, "delete", receive(t, fake.actions))
	d.waitGone("#runs tr[data-run='" + id + "']")
	// The row goes with the stream's run_removed, which can come before
	// the page has the DELETE's answer and leaves the run's page.
	d.until("the home page after the delete", `() => location.hash === "#/"`)

	// A wrong token: the form asks for it and says where it is.
	d.do(chromedp.Evaluate(`localStorage.setItem("raymond.token", "wrong")`, nil), chromedp.Reload())
	d.waitText("#login-message", "refused the token")
	d.waitText("#login", ".raymond/serve.token")
	d.screenshot("login")
	d.typeIn("#login-token", token+kb.Enter) // the keyboard submits the form
	d.waitText("#workflows [data-key=review] h3", "Code review")

	assert.Empty(t, unexpected(d.Problems()), "the page wrote errors to the console")
}

// unexpected drops from problems the browser's own notes of the refusals
// the test provoked on purpose (400 for the unknown model, 409 for the
// expired ask, 401 for the wrong token): the page handles them, the
// browser logs them anyway.
func unexpected(problems []string) []string {
	var out []string
	for _, p := range problems {
		if strings.HasPrefix(p, "log (network): ") &&
			(strings.Contains(p, "status of 400") || strings.Contains(p, "status of 409") || strings.Contains(p, "status of 401")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// receive is the next value of c, or fails the test when the page sends
// nothing within waitTimeout.
func receive[T any](t *testing.T, c chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("the page sent nothing to the fake API within %s", waitTimeout)
		panic("unreachable")
	}
}
