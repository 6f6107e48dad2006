package project

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"raymond/internal/spelling"
)

// ScheduleKeys are the keys of a [[serve.schedule]] entry; a manifest's
// schedule: takes the same but workflow.
var ScheduleKeys = []string{"name", "workflow", "cron", "timezone", "missed", "overlap", "input", "budget"}

// Schedule is one [[serve.schedule]] entry of the config, or a workflow
// manifest's schedule: a workflow launched by the daemon at the times of a
// cron expression.
type Schedule struct {
	// Name names it in the API and in the daemon's state; unique. The
	// config's default is the workflow's id; a manifest's is always the
	// workflow's id.
	Name string
	// Workflow is the id of the workflow in the daemon's catalog.
	Workflow string
	// Cron is five fields (minute hour day-of-month month day-of-week) or
	// a descriptor (@hourly, @daily, @weekly, @monthly, @yearly, @every 10m).
	Cron string
	// Timezone is an IANA zone name; "" is the daemon's local time.
	Timezone string
	// Missed is what a start does for fire times that passed while the
	// daemon was down: "skip" (fire none) or "once" (fire one run).
	Missed string
	// Overlap is what a fire does while the run of the previous fire is
	// still going: "skip" or "allow".
	Overlap string
	// Input is the run's input; nil for none.
	Input *string
	// Budget is the run's budget in USD; nil for the workflow's or the
	// config's.
	Budget *float64
	// Line is the line of its workflow key, 0 when unknown.
	Line int
}

// Cron policies.
const (
	MissedSkip   = "skip"
	MissedOnce   = "once"
	OverlapSkip  = "skip"
	OverlapAllow = "allow"
)

// ParseCron reads a cron expression in the time zone tz ("" for local
// time): five fields, or a descriptor such as @daily or @every 10m. It uses
// robfig/cron's standard parser.
func ParseCron(expr, tz string) (cron.Schedule, error) {
	loc, err := ParseTimezone(tz)
	if err != nil {
		return nil, err
	}
	e := strings.TrimSpace(expr)
	switch {
	case e == "":
		return nil, fmt.Errorf("cron is empty: give five fields (minute hour day month weekday) such as \"0 9 * * 1-5\", or a descriptor such as @daily or @every 10m")
	case strings.HasPrefix(e, "TZ=") || strings.HasPrefix(e, "CRON_TZ="):
		return nil, fmt.Errorf("cron %q names a time zone: give it as timezone = %q instead", expr, strings.TrimPrefix(strings.TrimPrefix(strings.Fields(e)[0], "CRON_"), "TZ="))
	}
	s, err := cron.ParseStandard(e)
	if err != nil {
		return nil, fmt.Errorf("cron %q: %v; give five fields (minute hour day month weekday) such as \"0 9 * * 1-5\", or a descriptor such as @daily or @every 10m", expr, err)
	}
	switch s := s.(type) {
	case *cron.SpecSchedule:
		s.Location = loc
	case cron.ConstantDelaySchedule:
		if s.Delay < time.Minute {
			return nil, fmt.Errorf("cron %q fires more than once a minute: give @every 1m or longer", expr)
		}
	}
	return s, nil
}

// ParseTimezone reads an IANA time zone name; "" (or "Local") is the
// machine's local time.
func ParseTimezone(tz string) (*time.Location, error) {
	if tz == "" || tz == "Local" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("timezone %q is not a time zone this machine knows: give an IANA name such as \"Europe/Paris\" or \"UTC\"", tz)
	}
	return loc, nil
}

// Check says what is wrong with the schedule's values, one key at a time;
// the key is "" for a problem of the whole entry.
func (s *Schedule) Check() (key string, err error) {
	if _, err := ParseTimezone(s.Timezone); err != nil {
		return "timezone", err
	}
	if _, err := ParseCron(s.Cron, s.Timezone); err != nil {
		return "cron", err
	}
	if err := checkChoice("missed", s.Missed, MissedSkip, MissedOnce); err != nil {
		return "missed", err
	}
	if err := checkChoice("overlap", s.Overlap, OverlapSkip, OverlapAllow); err != nil {
		return "overlap", err
	}
	if s.Budget != nil {
		if err := CheckBudget(*s.Budget); err != nil {
			return "budget", err
		}
	}
	return "", nil
}

func checkChoice(key, v string, allowed ...string) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s must be %s, not %q", key, strings.Join(allowed, " or "), v)
}

// setSchedules reads [[serve.schedule]]: an array of tables.
func (sv *Serve) setSchedules(v any) error {
	list, ok := v.([]map[string]any)
	if !ok {
		return &keyError{path: []string{"schedule"}, err: fmt.Errorf("serve.schedule must be an array of tables ([[serve.schedule]]), not %s", tomlType(v))}
	}
	for i, table := range list {
		var s Schedule
		for _, key := range sortedKeys(table) {
			if err := s.set(key, table[key]); err != nil {
				return &keyError{path: []string{"schedule", fmt.Sprint(i), key}, err: err}
			}
		}
		if s.Workflow == "" {
			return &keyError{path: []string{"schedule", fmt.Sprint(i)}, err: fmt.Errorf("a [[serve.schedule]] has no workflow: give the id of a workflow the daemon lists, such as workflow = \"nightly\"")}
		}
		if s.Cron == "" {
			return &keyError{path: []string{"schedule", fmt.Sprint(i)}, err: fmt.Errorf("the [[serve.schedule]] of workflow %q has no cron: give one such as cron = \"0 3 * * *\" or \"@daily\"", s.Workflow)}
		}
		if key, err := s.Check(); err != nil {
			return &keyError{path: []string{"schedule", fmt.Sprint(i), key}, err: fmt.Errorf("serve.schedule.%v", err)}
		}
		if s.Name == "" {
			s.Name = s.Workflow
		}
		for _, o := range sv.Schedules {
			if o.Name == s.Name {
				return &keyError{path: []string{"schedule", fmt.Sprint(i)}, err: fmt.Errorf("two [[serve.schedule]] are named %q: give each its own name = \"…\"", s.Name)}
			}
		}
		sv.Schedules = append(sv.Schedules, s)
	}
	return nil
}

// set stores one key of a [[serve.schedule]] entry.
func (s *Schedule) set(key string, v any) error {
	var (
		p   *string
		err error
	)
	switch key {
	case "name", "workflow", "cron", "timezone", "missed", "overlap", "input":
		if p, err = tomlString("serve.schedule."+key, v); err != nil {
			return err
		}
	case "budget":
		f, err := tomlNumber("serve.schedule.budget", v)
		if err == nil {
			s.Budget = &f
		}
		return err
	default:
		return unknownKey("serve.schedule", key, ScheduleKeys)
	}
	switch key {
	case "name":
		s.Name = *p
	case "workflow":
		s.Workflow = *p
	case "cron":
		s.Cron = *p
	case "timezone":
		s.Timezone = *p
	case "missed":
		s.Missed = *p
	case "overlap":
		s.Overlap = *p
	case "input":
		s.Input = p
	}
	return nil
}

// unknownKey is the error for a key a table does not know.
func unknownKey(table, key string, keys []string) error {
	if near := spelling.Suggest(key, keys); near != "" {
		return fmt.Errorf("unknown key %s.%s; did you mean %s.%s? The keys of [[%s]] are %s", table, key, table, near, table, strings.Join(keys, ", "))
	}
	return fmt.Errorf("unknown key %s.%s; the keys of [[%s]] are %s", table, key, table, strings.Join(keys, ", "))
}
