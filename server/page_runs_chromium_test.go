//go:build unix

package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
)

// TestPageRunsSearchPagesInputAndZone: the runs table of a busy project
// is searched and paged; a run's page shows its input; every time is in
// the browser's zone, which the header names.
func TestPageRunsSearchPagesInputAndZone(t *testing.T) {
	const token = "T0KEN-for-the-runs"
	fake := newFakeAPI(t, token)
	start := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	fake.mu.Lock()
	for i := 1; i <= 30; i++ {
		wf, status := "review", "completed"
		if i%3 == 0 {
			wf, status = "deploy", "failed"
		}
		fake.nextRun++
		r := &fakeRun{id: fakeRunID(fake.nextRun), workflow: wf, status: status, created: start.Add(time.Duration(i) * time.Minute),
			agents: []map[string]any{{"id": "main", "current_state": "1_START.md", "status": "completed", "steps": 1}},
			subs:   map[chan fakeEvent]bool{}}
		if i == 30 {
			r.input = "feature/login\nand the tests"
			r.scripted = true
		}
		if i == 28 {
			r.status, r.agents[0]["status"] = "running", "running"
		}
		fake.runs[r.id] = r
	}
	fake.mu.Unlock()
	mux := http.NewServeMux()
	fake.routes(mux)
	mux.Handle("/", Page())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)

	d := newPageDriver(t, srv.URL, token)
	d.do(emulation.SetTimezoneOverride("Asia/Tokyo"))
	d.open("/")

	// Pages of 25, newest first.
	d.waitText("#runs-page", "1–25 of 30")
	d.until("25 rows", `() => document.querySelectorAll("#runs tr").length === 25`)
	d.waitText("#runs tr:first-child", fakeRunID(30))
	d.click("#runs-older")
	d.waitText("#runs-page", "26–30 of 30")
	d.waitText("#runs tr:first-child", fakeRunID(5))
	d.click("#runs-newer")
	d.waitText("#runs-page", "1–25 of 30")

	// Search by workflow, with the status filter: 10 deploy runs, on one page.
	d.typeIn("#runs-search", "deploy")
	d.until("10 deploy rows", `() => document.querySelectorAll("#runs tr").length === 10 && [...document.querySelectorAll("#runs tr")].every((tr) => tr.textContent.includes("deploy"))`)
	d.waitGone("#runs-pager:not([hidden])")
	d.choose("#runs-filter", "completed")
	d.waitText("#runs-empty", "No run matches “deploy” among the completed runs.")
	d.choose("#runs-filter", "")
	// By run id.
	d.typeIn("#runs-search", strings.Repeat(kb.Backspace, len("deploy"))+fakeRunID(7)[len(fakeRunID(7))-2:])
	d.until("run 7 found", fmt.Sprintf(`() => { const rows = document.querySelectorAll("#runs tr"); return rows.length === 1 && rows[0].dataset.run === %q; }`, fakeRunID(7)))
	d.screenshot("runs-search")

	// The time zone: named in the header, on each full time.
	d.waitText("#zone", "Times in Asia/Tokyo")
	d.until("age title in Tokyo time", `() => /GMT\+9|JST/.test(document.querySelector("#runs tr td[data-since]").title)`)

	// A run's input.
	d.do(chromedp.Evaluate(fmt.Sprintf("location.hash = %q", "#/runs/"+fakeRunID(30)), nil))
	d.waitText("#run-input", "feature/login\nand the tests")
	d.waitText("#run-workflow", "started")
	d.waitText("#run-cost", "$0.00 spent (scripted replies: no model ran, nothing was billed)")
	d.until("started in Tokyo time", `() => /GMT\+9|JST/.test(document.querySelector("#run-workflow").textContent)`)
	d.screenshot("run-input")
	d.do(chromedp.Evaluate(fmt.Sprintf("location.hash = %q", "#/runs/"+fakeRunID(29)), nil))
	d.waitText("#run-id", fakeRunID(29))
	d.until("a run of claude is not said scripted", `() => !document.getElementById("run-cost").textContent.includes("scripted")`)
	d.until("no input box", `() => document.getElementById("run-input-box").hidden`)
	d.until("an ended run cannot be cancelled", `() => document.getElementById("run-cancel").disabled`)

	// Cancel, beside Pause, asks first; Keep it changes nothing.
	d.do(chromedp.Evaluate(fmt.Sprintf("location.hash = %q", "#/runs/"+fakeRunID(28)), nil))
	d.waitText("#run-status", "running")
	d.click("#run-cancel")
	d.waitText("#run-cancel-confirm", "Stop this run for good?")
	d.click("#run-cancel-no")
	d.until("the question gone", `() => document.getElementById("run-cancel-confirm").hidden`)
	d.click("#run-cancel")
	d.screenshot("run-cancel")
	d.click("#run-cancel-yes")
	assert.Equal(t, "cancel", receive(t, fake.actions))
	d.waitText("#run-action-message", "Cancelling")
	fake.update(fakeRunID(28), func(r *fakeRun) { r.status = "failed"; r.agents[0]["status"] = "failed" })
	fake.event(fakeRunID(28), map[string]any{"type": "run_ended", "status": "failed"})
	d.waitText("#run-status", "failed")
	d.until("cancelled: the note goes, the button is off", `() => document.getElementById("run-action-message").textContent === "" && document.getElementById("run-cancel").disabled`)
	assert.Empty(t, d.Problems(), "console errors")
}
