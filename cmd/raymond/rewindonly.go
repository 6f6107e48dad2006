package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"raymond/parsing"
	"raymond/transcript"
)

// onlyStep stops a rewound run from starting anything after the step
// rewound to (--only): a sink of the driver's events that quiesces the run
// once that agent's step has started.
type onlyStep struct {
	agent string
	once  sync.Once
	stop  chan struct{}
	mu    sync.Mutex
	seen  bool
}

func (o *onlyStep) Event(e transcript.Event) {
	if e.Type == transcript.EventStepStarted && e.Agent == o.agent {
		o.mu.Lock()
		o.seen = true
		o.mu.Unlock()
		o.once.Do(func() { close(o.stop) })
	}
}

func (o *onlyStep) started() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.seen
}

// quiesce returns the channel the driver quiesces on: closed when parent is
// (a signal), or once the step has started.
func (o *onlyStep) quiesce(parent <-chan struct{}) <-chan struct{} {
	o.stop = make(chan struct{})
	q := make(chan struct{})
	go func() {
		select {
		case <-parent:
		case <-o.stop:
		}
		close(q)
	}()
	return q
}

// stepAnswer is one run's answer to the step, as --only shows it.
type stepAnswer struct {
	Run     string  `json:"run"`
	Step    string  `json:"step"`
	Model   string  `json:"model,omitempty"`
	Outcome string  `json:"outcome"`
	Tag     string  `json:"tag,omitempty"`
	Target  string  `json:"target,omitempty"`
	Text    string  `json:"text"`
	CostUSD float64 `json:"cost_usd"`
}

// readStepAnswer reads the answer step name gave in transcript folder dir.
func readStepAnswer(dir, run, name string) stepAnswer {
	a := stepAnswer{Run: run, Step: name}
	if data, err := os.ReadFile(filepath.Join(dir, name+".meta.json")); err == nil {
		var m transcript.Meta
		if json.Unmarshal(data, &m) == nil {
			a.Model, a.Outcome, a.CostUSD = m.Model, m.Outcome, m.CostUSD
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, name+".jsonl")); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var l struct {
				Type   string `json:"type"`
				Result string `json:"result"`
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Type == "result" {
				a.Text = l.Result
			}
		}
	}
	if t, err := parsing.Parse(a.Text); err == nil {
		a.Tag, a.Target = t.Tag.Name, t.Tag.Target
	}
	return a
}

// printAlternative prints the answer the rewound step gave (in run newID,
// folder newDir) beside the original's (folder dir), for --only.
func printAlternative(env *cmdEnv, dir, newDir, name, newID string, asJSON bool) error {
	orig := readStepAnswer(dir, filepath.Base(dir), name)
	alt := readStepAnswer(newDir, newID, name)
	if asJSON {
		data, err := json.MarshalIndent(map[string]stepAnswer{"original": orig, "alternative": alt}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "%s\n", data)
		return nil
	}
	for _, a := range []struct {
		label string
		stepAnswer
	}{{"original", orig}, {"alternative", alt}} {
		tag := a.Tag
		if a.Target != "" {
			tag += " " + a.Target
		}
		if tag == "" {
			tag = "no tag"
		}
		fmt.Fprintf(env.stdout, "%s (run %s, %s, %s, $%.4f): %s\n", a.label, a.Run, orDash(a.Model), tag, a.CostUSD, a.Outcome)
		fmt.Fprintf(env.stdout, "%s\n\n", a.Text)
	}
	return nil
}
