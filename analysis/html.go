package analysis

import (
	"bufio"
	"embed"
	"fmt"
	"html/template"
	"io"

	"raymond/diagram"
)

// The report's template, style sheet and script are files beside this
// one, embedded so that the report needs nothing but the binary.
//
//go:embed html/report.tmpl html/report.css html/report.js
var htmlAssets embed.FS

var (
	htmlTemplate = template.Must(template.New("report.tmpl").
			Funcs(template.FuncMap{"plural": htmlPlural}).
			ParseFS(htmlAssets, "html/report.tmpl"))
	htmlCSS = template.CSS(htmlAsset("html/report.css") + diagram.Style)
	htmlJS  = template.JS(htmlAsset("html/report.js"))
)

func htmlAsset(name string) string {
	b, err := htmlAssets.ReadFile(name)
	if err != nil {
		panic(err) // embedded above; cannot happen
	}
	return string(b)
}

// WriteHTML writes the self-contained HTML report: summary, timeline chart,
// cost-per-state bars, path, and every step expandable. detail reads one
// step in full (LoadDetail, usually); it is called once per step, in
// order, as the step is written, so that only one step's prompt and
// stream are in memory at a time. A nil detail, or one that fails for a
// step, leaves that step with what the model knows of it.
//
// The page is one UTF-8 file with its style, its charts (inline SVG) and a
// small script inside; it loads nothing from anywhere, and every text that
// comes from the transcript is escaped. It is fully usable without the
// script, which only adds expand/collapse-all and a filter of the steps.
// What one step shows is capped (see htmlStepCap), the more steps the
// less, so that a run of thousands of steps gives a file a browser opens.
func WriteHTML(w io.Writer, r *Run, detail func(*Step) (*Detail, error)) error {
	page := buildPage(r)
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := htmlTemplate.ExecuteTemplate(bw, "head", page); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	limit := htmlStepCap(len(r.Steps))
	for _, s := range r.Steps {
		var d *Detail
		var derr error
		if detail != nil {
			d, derr = detail(s)
		}
		hs := htmlStepOf(s, d, page.anchors, page.critical[s.Name], limit)
		hs.Ask = page.askOf[s.Name]
		if derr != nil {
			hs.Detail, hs.DetailError = nil, derr.Error()
		}
		if err := htmlTemplate.ExecuteTemplate(bw, "step", hs); err != nil {
			return fmt.Errorf("write html report: %w", err)
		}
	}
	if err := htmlTemplate.ExecuteTemplate(bw, "tail", page); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// htmlPage is everything the template shows, computed beforehand so that
// the template only lays it out.
type htmlPage struct {
	CSS template.CSS
	JS  template.JS

	ID, Workflow  string
	Status        string
	StatusClass   string
	Running       bool
	HasResult     bool
	Result        string
	Error         string
	TranscriptDir string
	Notes         []string
	Warnings      []string
	Facts         []htmlFact
	Timeline      *htmlTimeline
	Costs         *htmlCosts
	Critical      []htmlStepRef
	CriticalMore  int
	Agents        []*htmlAgent
	Asks          []*htmlAsk
	VisitCaps     []htmlVisitCap
	Graph         *htmlWorkflow
	Changes       *htmlChanges
	AgentFilter   []string // agent ids offered by the step filter
	ProblemSteps  int
	DetailMissing int

	// anchors, critical and askOf serve the steps, written one by one
	// after the page's head.
	anchors  map[string]string
	critical map[string]bool
	askOf    map[string]*htmlAsk // by the name of the step that asked
}

// htmlVisitCap is one visit_cap event as the report's Visit caps section
// shows it.
type htmlVisitCap struct {
	Agent, Line string
	Failed      bool
}

// htmlFact is one line of the summary.
type htmlFact struct {
	Label, Value string
	Class        string
}

// htmlCriticalShown is how many steps of the critical path are listed.
const htmlCriticalShown = 40

func buildPage(r *Run) *htmlPage {
	anchors := htmlAnchors(r)
	critical := make(map[string]bool, len(r.CriticalPath))
	for _, name := range r.CriticalPath {
		critical[name] = true
	}
	p := &htmlPage{
		CSS: htmlCSS, JS: htmlJS,
		ID: r.ID, Workflow: r.Workflow,
		Status: r.Status, StatusClass: htmlStatusClass(r.Status), Running: r.Running,
		Error: r.Error, TranscriptDir: r.Dir,
		Notes: r.Notes, Warnings: r.Warnings,
		Facts:    htmlFacts(r),
		Timeline: buildTimeline(r, anchors, critical),
		Costs:    buildCosts(r),
		anchors:  anchors,
		critical: critical,
	}
	if r.Result != nil {
		p.HasResult, p.Result = true, *r.Result
	}
	steps := make(map[string]*Step, len(r.Steps))
	for _, s := range r.Steps {
		steps[s.Name] = s
	}
	for i, name := range r.CriticalPath {
		if i == htmlCriticalShown {
			p.CriticalMore = len(r.CriticalPath) - i
			break
		}
		p.Critical = append(p.Critical, htmlRef(name, steps[name], anchors))
	}
	p.Agents = htmlAgents(r, steps, anchors)
	p.Asks = htmlAsks(r, steps, anchors)
	for _, c := range r.VisitCaps {
		p.VisitCaps = append(p.VisitCaps, htmlVisitCap{Agent: c.Agent, Line: visitCapSummary(r, c), Failed: c.Tag == ""})
	}
	p.Graph = buildWorkflow(r)
	p.Changes = buildChanges(r, anchors)
	p.askOf = make(map[string]*htmlAsk, len(p.Asks))
	for i, k := range r.Asks {
		if k.Step != "" {
			p.askOf[k.Step] = p.Asks[i]
		}
	}
	for _, s := range r.Steps {
		if htmlProblem(s) {
			p.ProblemSteps++
		}
		if !s.HasPrompt && !s.HasLines && !s.ranScript() {
			p.DetailMissing++
		}
	}
	if len(r.Agents) > 1 {
		for _, a := range r.Agents {
			p.AgentFilter = append(p.AgentFilter, a.ID)
		}
	}
	return p
}

// htmlFacts is the summary as label/value lines.
func htmlFacts(r *Run) []htmlFact {
	var f []htmlFact
	add := func(label, value, class string) { f = append(f, htmlFact{label, value, class}) }

	wall := htmlDuration(r.WallMS)
	if !r.Started.IsZero() {
		wall += fmt.Sprintf(" (%s to %s)", htmlWhen(r.Started), htmlWhen(r.Ended))
	}
	add("Wall time", wall, "")
	cost := htmlMoney(r.CostUSD)
	if r.StepCount > 0 {
		cost += fmt.Sprintf(" (%s per step)", htmlMoney(r.CostUSD/float64(r.StepCount)))
	}
	add("Cost", cost, "")
	switch {
	case r.BudgetUSD > 0 && r.BudgetExceeded:
		add("Budget", fmt.Sprintf("%s, exceeded: the run stopped at it", htmlMoney(r.BudgetUSD)), "bad")
	case r.BudgetUSD > 0:
		add("Budget", fmt.Sprintf("%s, %.0f%% used", htmlMoney(r.BudgetUSD), r.CostUSD/r.BudgetUSD*100), "")
	case r.BudgetExceeded:
		add("Budget", "exceeded: the run stopped at it", "bad")
	default:
		add("Budget", "none", "")
	}
	t := r.Tokens
	add("Tokens", fmt.Sprintf("%s in, %s out, %s cache read, %s cache write",
		htmlTokens(t.Input), htmlTokens(t.Output), htmlTokens(t.CacheRead), htmlTokens(t.CacheCreation)), "")
	steps := htmlCount(r.StepCount)
	if r.Failures > 0 {
		steps += fmt.Sprintf(" (%s did not succeed)", htmlCount(r.Failures))
	}
	add("Steps", steps, htmlClassIf(r.Failures > 0, "warn"))
	add("Agents", htmlCount(r.AgentCount), "")
	add("Retries", htmlCount(r.Retries), htmlClassIf(r.Retries > 0, "warn"))
	add("Reminders", htmlCount(r.Reminders), htmlClassIf(r.Reminders > 0, "warn"))
	waits := "none"
	if len(r.Waits) > 0 {
		waits = fmt.Sprintf("%s, %s in all", htmlPlural(len(r.Waits), "usage-limit wait", "usage-limit waits"),
			htmlDuration(r.WaitMS))
	}
	add("Waits", waits, htmlClassIf(len(r.Waits) > 0, "warn"))
	if len(r.Asks) > 0 {
		add("Asks", askCounts(r), htmlClassIf(askPending(r) > 0, "warn"))
	}
	if len(r.VisitCaps) > 0 {
		add("Visit caps", htmlPlural(len(r.VisitCaps), "cap fired", "caps fired"), "warn")
	}
	if r.Entry != "" {
		add("Entry", r.Entry, "")
	}
	add("Transcript", r.Dir, "path")
	return f
}

func htmlClassIf(cond bool, class string) string {
	if cond {
		return class
	}
	return ""
}

// htmlStatusClass colours a run's or an agent's status.
func htmlStatusClass(status string) string {
	switch status {
	case "completed":
		return "ok"
	case "failed":
		return "bad"
	case "running":
		return "run"
	}
	return "warn"
}
