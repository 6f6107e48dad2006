package analysis

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// htmlHas checks that page contains every one of want, naming the ones
// it lacks without printing the whole page.
func htmlHas(t *testing.T, page string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
}

// htmlLacks checks that page contains none of bad.
func htmlLacks(t *testing.T, page string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if i := strings.Index(page, b); i >= 0 {
			t.Errorf("the report has %q: …%s…", b, page[max(0, i-80):min(len(page), i+len(b)+80)])
		}
	}
}

// detailsOf reads the details of steps from a map, as WriteHTML asks for
// them.
func detailsOf(details map[string]*Detail) func(*Step) (*Detail, error) {
	return func(s *Step) (*Detail, error) { return details[s.Name], nil }
}

func htmlReport(t *testing.T, r *Run, details map[string]*Detail) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r, detailsOf(details)))
	require.True(t, utf8.Valid(b.Bytes()), "the report is not valid UTF-8")
	return b.String()
}

// htmlTag matches a start tag of the report. Text from the transcript is
// escaped, so every '<' in the output starts real markup.
var (
	htmlTag     = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	htmlURLAttr = regexp.MustCompile(`(?i)\s(src|href|xlink:href|action|formaction|poster|data|srcset)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)
)

func TestHTMLLoadsNothingFromOutside(t *testing.T) {
	for _, urls := range []bool{false, true} {
		page := htmlReport(t, htmlRealisticRun(), htmlDetails(htmlRealisticRun(), urls))
		refs := 0
		for _, tag := range htmlTag.FindAllString(page, -1) {
			for _, m := range htmlURLAttr.FindAllStringSubmatch(tag, -1) {
				value := strings.Trim(m[2], `"'`)
				assert.True(t, strings.HasPrefix(value, "#"), "%s=%q in %s points outside the page", m[1], value, tag)
				refs++
			}
		}
		assert.Greater(t, refs, 10, "links within the page are expected")
		htmlLacks(t, page, "@import")
		assert.NotRegexp(t, `url\([^#)]`, page, "a CSS url() other than a #fragment")
		if !urls {
			// With no URL in the transcript, none may appear anywhere.
			for _, s := range []string{"http://", "https://", "//evil"} {
				htmlLacks(t, page, s)
			}
		}
	}
}

func TestHTMLEscapesTranscriptText(t *testing.T) {
	r := htmlRealisticRun()
	evil := `</pre><script>alert("agent")</script>`
	r.Agents[1].ID = "main_<b>worker</b>1" // the path's and the filter's names
	r.Steps[5].State = `W"ORK'.md`
	r.Result = &evil
	r.Notes = append(r.Notes, "<img src=x onerror=alert(1)>")
	page := htmlReport(t, r, htmlDetails(r, true))

	assert.Equal(t, 1, strings.Count(page, "<script>"), "only the report's own script")
	htmlLacks(t, page, `<img`)
	htmlLacks(t, page, `<b>`)
	htmlLacks(t, page, `alert("agent")`)
	htmlHas(t, page, "&lt;script&gt;alert(&#39;prompt&#39;)&lt;/script&gt;")
	htmlHas(t, page, "&lt;/pre&gt;&lt;script&gt;")
	htmlHas(t, page, "&lt;img src=x onerror=alert(1)&gt;")
	htmlHas(t, page, "main_&lt;b&gt;worker&lt;/b&gt;1")
	htmlHas(t, page, "W&#34;ORK&#39;.md")
	assert.Equal(t, strings.Count(page, "<details"), strings.Count(page, "</details>"))
	assert.Equal(t, strings.Count(page, "<pre"), strings.Count(page, "</pre>"))
}

func TestHTMLSections(t *testing.T) {
	r := htmlRealisticRun()
	page := htmlReport(t, r, htmlDetails(r, false))

	for _, want := range []string{
		`<section class="notes" id="notes">`, "events.jsonl ends in a torn line (312 bytes), dropped",
		`<span class="badge ok">completed</span>`,
		"<dt>Cost</dt><dd>$1.24 ($0.0954 per step)</dd>",
		"<dt>Budget</dt><dd>$5.00, 25% used</dd>",
		`<dt>Retries</dt><dd class="warn">1</dd>`,
		`<dt>Reminders</dt><dd class="warn">1</dd>`,
		`<dt>Waits</dt><dd class="warn">1 usage-limit wait, 5m00s in all</dd>`,
		"<dt>Wall time</dt><dd>9m20s (2026-11-21 10:00:00 UTC to 2026-11-21 10:09:20 UTC)</dd>",
		"unknown frontmatter key &#34;modle&#34;",
		`<svg class="timeline"`, `<svg class="costs"`,
		`<rect class="wait"`, "Claude usage limit reached; resets at 10:07",
		// A retried step, a reminded one, a usage limit, all on the critical path.
		`<rect class="bar fail crit"`, `<rect class="bar reminded crit"`, `<rect class="bar limit crit"`,
		`<rect class="bar ok"`,
		"main_PLAN_004\nstate PLAN.md\n13.8 s (10:00:46.200–10:01:00.000)\ncost $0.0103\napi error; retried",
		// The path: the call indented, the fork where it spawns.
		`<li style="--depth: 1"><span class="via">call</span> <span class="state">SURVEY.md</span>`,
		`forked <a href="#agent-main_worker1">main_worker1</a>, <a href="#agent-main_worker2">main_worker2</a>`,
		`<span class="exit">result → PLAN.md</span>`,
		`<span class="exit">result: the agent ended</span>`,
		`#3 reminder`, `#5 retry`,
		// Steps: every one, with or without a detail.
		`<details class="step" id="step-main_START_001" data-agent="main">`,
		`<details class="step" id="step-main_PLAN_004" data-agent="main" data-problem="true">`,
		"The prompt and the stream of this step are not in the report.",
		"main_START_001.jsonl ends in a torn line, dropped",
		`<li class="item result err"><span class="kind">tool error <code>Read</code></span>`,
		"shortened here; the step's .jsonl has all of it",
		`<option>main_worker3</option>`,
		"only the 3 steps with a problem",
		"3 steps have no prompt or stream",
	} {
		htmlHas(t, page, want)
	}
	assert.Equal(t, len(r.Steps), strings.Count(page, `<details class="step"`))
	assert.Equal(t, len(r.Agents), strings.Count(page, `<details class="agent"`))
	assert.Equal(t, len(r.Steps), strings.Count(page, `<rect class="bar `)-len(r.States), "one bar per step")
}

func TestHTMLOneStep(t *testing.T) {
	r := htmlRunOf("one", []htmlStepSpec{{agent: "main", state: "START.md", from: 0, to: 0.3, outcome: "success", tag: "result"}},
		map[string][]htmlVisitSpec{"main": {{steps: []int{0}}}})
	page := htmlReport(t, r, nil)
	htmlHas(t, page, `<rect class="bar ok"`)
	htmlHas(t, page, "No state cost anything.")
	htmlHas(t, page, `<span class="via">entry</span> <span class="state">START.md</span>`)
	htmlLacks(t, page, `id="notes"`)        // a complete run has no notes
	htmlLacks(t, page, `id="agent-filter"`) // one agent needs no filter
	htmlLacks(t, page, `id="problem-filter"`)
}

func TestHTMLEmptyAndCutShort(t *testing.T) {
	t.Run("no steps", func(t *testing.T) {
		r := &Run{ID: "empty", Status: "unknown", Notes: []string{"events.jsonl is empty"}}
		page := htmlReport(t, r, nil)
		htmlHas(t, page, "No step ran.")
		htmlHas(t, page, "No state ran.")
		htmlHas(t, page, "No agent is known.")
		htmlHas(t, page, "events.jsonl is empty")
	})
	t.Run("a step that never ended", func(t *testing.T) {
		r := htmlRunOf("cut", []htmlStepSpec{
			{agent: "main", state: "START.md", from: 0, to: 5, outcome: "success", tag: "goto", target: "WORK.md"},
			{agent: "main", state: "WORK.md", from: 5, to: -1},
		}, map[string][]htmlVisitSpec{"main": {{steps: []int{0}}, {via: "goto", steps: []int{1}}}})
		r.Ended = htmlAt(9)
		r.Status, r.Running = "running", true
		r.Agents[0].Status = "running"
		page := htmlReport(t, r, nil)
		htmlHas(t, page, `<rect class="bar open"`)
		htmlHas(t, page, "started 10:00:05.000, not ended")
		htmlHas(t, page, `<span class="exit">the transcript ends here</span>`)
		htmlHas(t, page, "a process drives it now")
		htmlHas(t, page, "main_WORK_002.meta.json (missing)")
	})
}

func TestHTMLWideRunCapsTheTimeline(t *testing.T) {
	r := htmlWideRun(1000)
	page := htmlReport(t, r, nil)
	tl := buildTimeline(r, htmlAnchors(r), map[string]bool{})
	assert.Len(t, tl.Rows, tlMaxRows)
	assert.False(t, tl.Labels, "rows this thin carry no names")
	assert.LessOrEqual(t, tl.Height, 1100, "the chart stays within a screen or so")
	htmlHas(t, page, "The chart shows 120 of 1,000 agents")
	htmlHas(t, page, "hover a row for its agent")
	htmlHas(t, page, "and 975 more") // the fork lists the first children
	assert.Equal(t, len(r.Steps), strings.Count(page, `<details class="step"`))
	// The workers went the same way: one block, which names each of them
	// with the anchor that the timeline's rows and the forks link to.
	assert.Equal(t, 2, strings.Count(page, `<details class="agent"`))
	htmlHas(t, page, "main_worker1 … main_worker999 (999 agents)", `<code id="agent-main_worker998">main_worker998</code>`)
	htmlHas(t, page, `<details class="members"><summary>999 agents, all the same way:</summary>`)
}

func TestHTMLTimelinePicksRows(t *testing.T) {
	r := htmlWideRun(1000)
	onPath := r.Agents[500]
	r.CriticalPath = []string{onPath.StepNames[0]}
	var troubled []string
	for _, i := range []int{7, 301, 302, 303, 998} {
		s := htmlStepNamed(r, r.Agents[i].StepNames[1])
		s.Outcome, s.Retried = "crash", true
		troubled = append(troubled, r.Agents[i].ID)
	}
	shown, note := timelineAgents(r)
	require.Len(t, shown, tlMaxRows)
	ids := map[string]int{}
	for i, a := range shown {
		ids[a.ID] = i
	}
	assert.Equal(t, "main", shown[0].ID)
	assert.Contains(t, ids, onPath.ID, "an agent of the critical path always has a row")
	for _, id := range troubled {
		assert.Contains(t, ids, id, "an agent with a failed step has a row")
	}
	for q := range 4 {
		n := 0
		for i := q * 250; i < (q+1)*250; i++ {
			if _, ok := ids[r.Agents[i].ID]; ok {
				n++
			}
		}
		assert.Greater(t, n, 20, "every quarter of the run keeps rows")
	}
	for i := 1; i < len(shown); i++ {
		assert.Less(t, htmlIndexOf(r, shown[i-1].ID), htmlIndexOf(r, shown[i].ID), "rows keep the order of appearance")
	}
	assert.Contains(t, note, "120 of 1,000 agents")
}

func htmlStepNamed(r *Run, name string) *Step {
	for _, s := range r.Steps {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func htmlIndexOf(r *Run, id string) int {
	for i, a := range r.Agents {
		if a.ID == id {
			return i
		}
	}
	return -1
}

func TestHTMLTimelineLoad(t *testing.T) {
	r := htmlRealisticRun()
	points, peak := timelineLoad(r, timelineSpan(r))
	assert.Equal(t, 4, peak, "three workers and main's WAIT ran at once")
	assert.True(t, strings.HasPrefix(points, "170,48 170,48 170,38"), points)
	assert.True(t, strings.HasSuffix(points, "1184,48"), points)
}

func TestHTMLTimelineTicks(t *testing.T) {
	for _, tc := range []struct {
		span  float64
		first []string
	}{
		{0.3, []string{"0", "100ms", "200ms", "300ms"}},
		{9, []string{"0", "1s", "2s"}},
		{560, []string{"0", "1m", "2m"}},
		{3 * 3600, []string{"0", "30m", "1h", "1h30m"}},
	} {
		ticks := timelineTicks(tlSpan{htmlAt(0), htmlAt(tc.span)})
		assert.LessOrEqual(t, len(ticks), 11, "at most ten intervals")
		var labels []string
		for _, tk := range ticks[:len(tc.first)] {
			labels = append(labels, tk.Label)
		}
		assert.Equal(t, tc.first, labels, "span %vs", tc.span)
		assert.Equal(t, float64(tlLabelW), ticks[0].X)
	}
}

type htmlFailingWriter struct{}

func (htmlFailingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestHTMLWriteError(t *testing.T) {
	err := WriteHTML(htmlFailingWriter{}, htmlRealisticRun(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "write html report")
	assert.Contains(t, err.Error(), "disk full")
}

func TestHTMLShadesPauses(t *testing.T) {
	r := htmlRunOf("paused", []htmlStepSpec{
		{agent: "main", state: "START.md", from: 0, to: 10, outcome: "canceled"},
		{agent: "main", state: "START.md", from: 100, to: 110, outcome: "success", cost: 0.01, tag: "result"},
	}, map[string][]htmlVisitSpec{"main": {{steps: []int{0, 1}}}})
	r.Processes = []Process{{Started: htmlAt(0), Ended: htmlAt(10)}, {Started: htmlAt(100), Ended: htmlAt(110)}}
	page := htmlReport(t, r, nil)
	htmlHas(t, page,
		`<rect class="pause" x="262.2" y="8" width="829.6"`,
		"10:00:10.000–10:01:40.000 (1m30s): the run was paused; nothing ran until it was resumed",
		"paused: no process drove the run",
		`<rect class="bar canceled"`,
	)
	r.Processes[0].Crashed = true
	htmlHas(t, htmlReport(t, r, nil), "the process driving the run stopped without ending it")
}

// WriteHTML reads the steps' details one at a time, in order, as it
// writes them; a detail that cannot be read leaves a note in its step.
func TestHTMLReadsDetailsOneByOne(t *testing.T) {
	r := htmlRealisticRun()
	details := htmlDetails(r, false)
	var asked []string
	var b bytes.Buffer
	err := WriteHTML(&b, r, func(s *Step) (*Detail, error) {
		asked = append(asked, s.Name)
		if s.Name == r.Steps[1].Name {
			return nil, errors.New("permission denied")
		}
		return details[s.Name], nil
	})
	require.NoError(t, err)
	var want []string
	for _, s := range r.Steps {
		want = append(want, s.Name)
	}
	assert.Equal(t, want, asked)
	htmlHas(t, b.String(), "The prompt and the stream of this step could not be read: permission denied")
}

// What one step shows is capped, the more steps the less; the rest is in
// the step's files, and the report says so.
func TestHTMLCapsAStep(t *testing.T) {
	assert.Equal(t, htmlStepCapMax, htmlStepCap(1))
	assert.Equal(t, htmlStepCapMin, htmlStepCap(1_000_000))
	assert.Less(t, htmlStepCap(3000), htmlStepCap(30))

	r := htmlRealisticRun()
	s := r.Steps[0]
	big := strings.Repeat("a line of a long prompt\n", 20_000) // 480 KB
	items := make([]Item, 0, 40_000)
	for range 40_000 {
		items = append(items, Item{Kind: "tool", Tool: "Read", Text: "/some/file.go"})
	}
	d := &Detail{Step: s, Prompt: big, Answer: big, Items: items}
	page := htmlReport(t, r, map[string]*Detail{s.Name: d})
	limit := htmlStepCap(len(r.Steps))
	assert.Less(t, len(page), 4*limit+200_000, "the step shows about its cap, not its 1 MB")
	htmlHas(t, page, "KB more, left out of this report; "+s.Name+".prompt.md has all of it")
	htmlHas(t, page, "KB more, left out of this report; "+s.Name+".jsonl has all of it")
	assert.Regexp(t, `… and [\d,]+ more items, left out of this report; --step `+s.Name+` shows them`, page)
}
