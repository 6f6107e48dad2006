package state

// Override replaces, for one step, the model and effort the run and the
// state would give it ("" keeps theirs).
type Override struct {
	Model  string `json:"model,omitempty"`
	Effort string `json:"effort,omitempty"`
}

// Rewound says a run was made by raymond rewind from another run's state
// just before one of its steps.
type Rewound struct {
	// Run is the original run's id; Step the transcript name of the step
	// rewound to (main_REVIEW_007), and Agent its agent.
	Run   string `json:"run"`
	Step  string `json:"step"`
	Agent string `json:"agent"`
	// PriorCostUSD is what the original had spent before the step: shown,
	// never counted against this run's budget.
	PriorCostUSD float64 `json:"prior_cost_usd"`
	// Cuts maps a session of the original to the message it stood at
	// before the step ("" when its transcript did not record it). A step of this run that resumes or branches such a
	// session branches it at that message instead (Step.ResumeAt), so the
	// original's sessions are never written to and no later turn is seen.
	Cuts map[string]string `json:"cuts,omitempty"`
	// Only says the rewind ran the one step again and stopped (--only).
	Only bool `json:"only,omitempty"`
}

// Cut returns the message session is to be branched at in a rewound run,
// and whether it is one of the original's sessions (its message is "" when
// the original's transcript did not record it: the session is then branched
// as it stands, never resumed in place).
func (w *Rewound) Cut(session string) (string, bool) {
	if w == nil || session == "" {
		return "", false
	}
	at, ok := w.Cuts[session]
	return at, ok
}
