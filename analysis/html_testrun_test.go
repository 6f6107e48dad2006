package analysis

import (
	"fmt"
	"sort"
	"time"
)

// htmlT0 is when the hand-built runs of these tests start.
var htmlT0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// htmlAt is htmlT0 plus seconds.
func htmlAt(sec float64) time.Time {
	return htmlT0.Add(time.Duration(sec * float64(time.Second)))
}

// htmlStepSpec describes one step of a hand-built run.
type htmlStepSpec struct {
	agent, state string
	from, to     float64 // seconds after htmlT0; to < 0 for a step that never ended
	outcome      string
	cost         float64
	tag, target  string
	reminded     bool
	retried      bool
	reminder     bool
	attempt      int
}

// htmlVisitSpec describes one visit: the steps (indexes into the step
// specs) it holds.
type htmlVisitSpec struct {
	via     string
	depth   int
	steps   []int
	spawned []string
}

// htmlRealisticRun builds by hand the run a demanding reader would open
// the report for: main calls SURVEY (whose first answer is refused and
// reminded), PLAN fails once with an API error and is retried, then forks
// three workers; one of them hits the usage limit, the run waits five
// minutes, and they all finish before main reports. The transcript's
// events end in a torn line, so Notes say so.
func htmlRealisticRun() *Run {
	result := "Review of the project\n- tests: strong\n- docs: <b>good</b> & \"current\""
	specs := []htmlStepSpec{
		0:  {agent: "main", state: "START.md", from: 0, to: 12, outcome: "success", cost: 0.0512, tag: "call", target: "SURVEY.md"},
		1:  {agent: "main", state: "SURVEY.md", from: 12.2, to: 40, outcome: "success", cost: 0.1830, reminded: true},
		2:  {agent: "main", state: "SURVEY.md", from: 40.1, to: 46, outcome: "success", cost: 0.0221, tag: "result", target: "PLAN.md", reminder: true},
		3:  {agent: "main", state: "PLAN.md", from: 46.2, to: 60, outcome: "api error", cost: 0.0103, retried: true},
		4:  {agent: "main", state: "PLAN.md", from: 65, to: 80, outcome: "success", cost: 0.0420, tag: "fork", target: "WAIT.md", attempt: 2},
		5:  {agent: "main_worker1", state: "WORK.md", from: 80.1, to: 200, outcome: "success", cost: 0.3120, tag: "result"},
		6:  {agent: "main_worker2", state: "WORK.md", from: 80.1, to: 130, outcome: "usage limit", cost: 0},
		7:  {agent: "main_worker3", state: "WORK.md", from: 80.2, to: 150, outcome: "success", cost: 0.1500, tag: "goto", target: "WORK.md"},
		8:  {agent: "main", state: "WAIT.md", from: 80.2, to: 90, outcome: "success", cost: 0.0050, tag: "goto", target: "WAIT.md"},
		9:  {agent: "main_worker2", state: "WORK.md", from: 431, to: 500, outcome: "success", cost: 0.2800, tag: "result"},
		10: {agent: "main_worker3", state: "WORK.md", from: 431, to: 470, outcome: "success", cost: 0.0900, tag: "result"},
		11: {agent: "main", state: "WAIT.md", from: 500.2, to: 510, outcome: "success", cost: 0.0060, tag: "goto", target: "REPORT.md"},
		12: {agent: "main", state: "REPORT.md", from: 510.1, to: 560, outcome: "success", cost: 0.0890, tag: "result"},
	}
	r := htmlRunOf("20261121-100000-000001-a1b2c3", specs, map[string][]htmlVisitSpec{
		"main": {
			{via: "", depth: 0, steps: []int{0}},
			{via: "call", depth: 1, steps: []int{1, 2}},
			{via: "result", depth: 0, steps: []int{3, 4}, spawned: []string{"main_worker1", "main_worker2", "main_worker3"}},
			{via: "fork", depth: 0, steps: []int{8}},
			{via: "goto", depth: 0, steps: []int{11}},
			{via: "goto", depth: 0, steps: []int{12}},
		},
		"main_worker1": {{via: "fork", steps: []int{5}}},
		"main_worker2": {{via: "fork", steps: []int{6, 9}}},
		"main_worker3": {{via: "fork", steps: []int{7}}, {via: "goto", steps: []int{10}}},
	})
	r.Steps[12].Result = &result
	main := r.Agents[0]
	main.Result = &result
	main.Path[len(main.Path)-1].Result = &result
	r.Result = &result
	r.Status = "completed"
	r.Workflow = "/home/ada/project/workflows/review"
	r.Entry = "START.md"
	r.BudgetUSD = 5
	r.Waits = []Wait{{Started: htmlAt(130.5), Until: htmlAt(430.5), Ended: htmlAt(430.6),
		Reason: "Claude usage limit reached; resets at 10:07"}}
	r.WaitMS = 300_100
	r.Notes = []string{"events.jsonl ends in a torn line (312 bytes), dropped"}
	r.Warnings = []string{"REVIEW.md: unknown frontmatter key \"modle\""}
	r.CriticalPath = []string{"main_START_001", "main_SURVEY_002", "main_SURVEY_003", "main_PLAN_004",
		"main_PLAN_005", "main_worker2_WORK_001", "main_worker2_WORK_002", "main_WAIT_007", "main_REPORT_008"}
	r.Steps[3].Error = "API Error: 529 overloaded"
	r.Steps[1].Error = "no transition tag in the answer; a reminder was sent"
	return r
}

// htmlRunOf builds a run from step specs and each agent's visits,
// filling in names, counts, costs and per-state statistics the way Load
// would.
func htmlRunOf(id string, specs []htmlStepSpec, visits map[string][]htmlVisitSpec) *Run {
	r := &Run{Schema: SchemaVersion, ID: id, Dir: "/home/ada/project/.raymond/debug/" + id, Status: "completed"}
	seq := map[string]int{}
	agents := map[string]*Agent{}
	for _, sp := range specs {
		if agents[sp.agent] == nil {
			a := &Agent{ID: sp.agent, Status: "completed", Started: htmlAt(sp.from)}
			agents[sp.agent] = a
			r.Agents = append(r.Agents, a)
		}
		seq[sp.agent]++
		stem := sp.state[:len(sp.state)-len(".md")]
		s := &Step{
			Name: fmt.Sprintf("%s_%s_%03d", sp.agent, stem, seq[sp.agent]), Agent: sp.agent,
			Seq: seq[sp.agent], State: sp.state, Attempt: max(1, sp.attempt), Reminder: sp.reminder,
			Session: "5059b757-08cf-4d9a-97d6-975a81935c5d", SessionMode: "resume",
			Started: htmlAt(sp.from), Outcome: sp.outcome, CostUSD: sp.cost,
			Tokens: Tokens{Input: 1200 + int64(sp.cost*1e5), Output: 300 + int64(sp.cost*2e4), CacheRead: 45_000},
			Model:  "claude-sonnet-4-5", Runner: "claude",
			Tag: sp.tag, Target: sp.target, Reminded: sp.reminded, Retried: sp.retried,
			HasPrompt: true, HasLines: true, HasMeta: sp.to >= 0,
		}
		if sp.to >= 0 {
			s.Ended = htmlAt(sp.to)
			s.Duration = s.Ended.Sub(s.Started)
			s.DurationMS = s.Duration.Milliseconds()
		}
		if s.Outcome != "success" {
			r.Failures++
		}
		if s.Retried {
			r.Retries++
		}
		if s.Reminded {
			r.Reminders++
		}
		r.Steps = append(r.Steps, s)
		a := agents[sp.agent]
		a.StepNames = append(a.StepNames, s.Name)
		a.CostUSD += s.CostUSD
		a.Ended = s.Ended
		r.CostUSD += s.CostUSD
		r.Tokens.Input += s.Tokens.Input
		r.Tokens.Output += s.Tokens.Output
		r.Tokens.CacheRead += s.Tokens.CacheRead
		r.Ended = tlLater(r.Ended, s.Ended)
	}
	stats := map[string]*StateStats{}
	for _, a := range r.Agents {
		for _, vs := range visits[a.ID] {
			first := r.Steps[vs.steps[0]]
			v := &Visit{State: first.State, Via: vs.via, Depth: vs.depth, Spawned: vs.spawned}
			for _, i := range vs.steps {
				s := r.Steps[i]
				v.Steps = append(v.Steps, s.Name)
				v.CostUSD += s.CostUSD
				v.Duration += s.Duration
				v.DurationMS += s.DurationMS
				v.Exit, v.Target = s.Tag, s.Target
			}
			a.Path = append(a.Path, v)
			for _, child := range vs.spawned {
				if c := agents[child]; c != nil {
					c.Parent, c.SpawnStep = a.ID, r.Steps[vs.steps[len(vs.steps)-1]].Name
				}
			}
			st := stats[v.State]
			if st == nil {
				st = &StateStats{State: v.State}
				stats[v.State] = st
				r.States = append(r.States, st)
			}
			st.Visits++
			st.Steps += len(v.Steps)
			st.DurationMS += v.DurationMS
			st.CostUSD += v.CostUSD
		}
	}
	for _, st := range r.States {
		st.MeanMS = st.DurationMS / int64(st.Visits)
	}
	sort.SliceStable(r.States, func(i, j int) bool {
		if r.States[i].CostUSD != r.States[j].CostUSD {
			return r.States[i].CostUSD > r.States[j].CostUSD
		}
		return r.States[i].State < r.States[j].State
	})
	r.Started = htmlT0
	r.WallMS = r.Ended.Sub(r.Started).Milliseconds()
	r.StepCount, r.AgentCount = len(r.Steps), len(r.Agents)
	return r
}

// htmlDetails gives some steps of r a Detail whose text is full of the
// markup and URLs a transcript holds, and leaves the others without one,
// nor the files it would come from.
func htmlDetails(r *Run, urls bool) map[string]*Detail {
	link := "the docs"
	if urls {
		link = `<a href="https://evil.example/x">the docs</a> <img src="http://evil.example/p.png"> //evil.example/z`
	}
	details := map[string]*Detail{}
	for i, s := range r.Steps {
		if i%4 == 3 {
			s.HasPrompt, s.HasLines = false, false
			continue // no detail: the report shows what is known
		}
		details[s.Name] = &Detail{
			Step:   s,
			Prompt: "Survey the project. Read " + link + ".\n<script>alert('prompt')</script>\nEnd with <goto>PLAN.md</goto>.",
			Items: []Item{
				{Kind: "text", Text: "Looking at the layout first. </pre></details><b>not bold</b>"},
				{Kind: "tool", Tool: "Bash", Text: "ls -la && grep -rn '<tag>' ."},
				{Kind: "tool_result", Tool: "Bash", Text: "total 48\ndrwxr-xr-x  8 ada ada 4096 .\n-rw-r--r--  1 ada ada  712 go.mod", Cut: true},
				{Kind: "tool", Tool: "Read", Text: "/home/ada/project/missing.go"},
				{Kind: "tool_result", Tool: "Read", Text: "File does not exist.", IsErr: true},
				{Kind: "error", Text: "API Error: 529 {\"type\":\"overloaded_error\"}"},
			},
			Answer: "Done. <result>ok & \"fine\"</result> " + link,
		}
	}
	if d := details[r.Steps[0].Name]; d != nil {
		d.Notes = []string{"main_START_001.jsonl ends in a torn line, dropped"}
	}
	return details
}

// htmlWideRun builds a run of n agents: main forks n-1 workers, each of
// which runs two steps, a quarter of them alongside each other.
func htmlWideRun(n int) *Run {
	specs := []htmlStepSpec{{agent: "main", state: "START.md", from: 0, to: 30, outcome: "success", cost: 0.05, tag: "fork", target: "WAIT.md"}}
	visits := map[string][]htmlVisitSpec{}
	var children []string
	for i := 1; i < n; i++ {
		id := fmt.Sprintf("main_worker%d", i)
		children = append(children, id)
		from := 30 + float64(i/max(1, n/4))*60 + float64(i%7)
		specs = append(specs,
			htmlStepSpec{agent: id, state: "WORK.md", from: from, to: from + 40, outcome: "success", cost: 0.02, tag: "goto", target: "CHECK.md"},
			htmlStepSpec{agent: id, state: "CHECK.md", from: from + 40, to: from + 55, outcome: "success", cost: 0.01, tag: "result"})
		visits[id] = []htmlVisitSpec{{via: "fork", steps: []int{len(specs) - 2}}, {via: "goto", steps: []int{len(specs) - 1}}}
	}
	end := 30 + float64(4)*60 + 60
	specs = append(specs, htmlStepSpec{agent: "main", state: "REPORT.md", from: end, to: end + 20, outcome: "success", cost: 0.04, tag: "result"})
	visits["main"] = []htmlVisitSpec{{via: "", steps: []int{0}, spawned: children}, {via: "fork", steps: []int{len(specs) - 1}}}
	r := htmlRunOf("20261121-120000-000002-d4e5f6", specs, visits)
	r.CriticalPath = []string{"main_START_001", r.Steps[len(r.Steps)-2].Name, "main_REPORT_002"}
	return r
}
