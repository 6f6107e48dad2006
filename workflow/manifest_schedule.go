package workflow

import (
	"go.yaml.in/yaml/v3"
)

// ManifestSchedule is a manifest's schedule: the daemon launches the
// workflow itself at the times of a cron expression. Only its shape is
// checked here; lint checks its values (the cron expression, the time
// zone, the policies) and the daemon runs it.
type ManifestSchedule struct {
	// Name names the schedule; "" for the workflow's id.
	Name string `json:"name,omitempty"`
	// Cron is five fields or a descriptor (@daily, @every 10m).
	Cron string `json:"cron"`
	// Timezone is an IANA zone name, "" for the daemon's local time.
	Timezone string `json:"timezone,omitempty"`
	// Missed is "skip" (also when "") or "once".
	Missed string `json:"missed,omitempty"`
	// Overlap is "skip" (also when "") or "allow".
	Overlap string `json:"overlap,omitempty"`
	// Input is the run's input; nil for none.
	Input *string `json:"input,omitempty"`
	// Budget is the run's budget in USD; nil for the manifest's default.
	Budget *float64 `json:"budget,omitempty"`
	// Line is the line of the schedule: key in its file.
	Line int `json:"-"`
}

// scheduleKeys are the keys under a manifest's schedule:.
var scheduleKeys = []string{"name", "cron", "timezone", "missed", "overlap", "input", "budget"}

// manifestSchedule decodes schedule: a mapping of the keys above.
func (d *policyDecoder) manifestSchedule(k, v *yaml.Node) (*ManifestSchedule, error) {
	if kind(v) == "empty" {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, d.errorAt(k, "schedule must be a mapping like { cron: \"0 3 * * *\", timezone: Europe/Paris }")
	}
	s := &ManifestSchedule{Line: d.openLine + k.Line}
	for i := 0; i+1 < len(v.Content); i += 2 {
		sk, sv := resolved(v.Content[i]), resolved(v.Content[i+1])
		var err error
		switch sk.Value {
		case "name":
			s.Name, err = d.str(sk, sv)
		case "cron":
			s.Cron, err = d.str(sk, sv)
		case "timezone":
			s.Timezone, err = d.str(sk, sv)
		case "missed":
			s.Missed, err = d.str(sk, sv)
		case "overlap":
			s.Overlap, err = d.str(sk, sv)
		case "input":
			var in string
			if in, err = d.str(sk, sv); err == nil {
				s.Input = &in
			}
		case "budget":
			var f float64
			if kind(sv) != "a number" || sv.Decode(&f) != nil {
				return nil, d.errorAt(sk, "schedule.budget must be a number of USD, not %q", sv.Value)
			}
			s.Budget = &f
		default:
			d.warnAt(sk, "unknown key %q under schedule ignored%s", sk.Value, didYouMean(sk.Value, scheduleKeys))
		}
		if err != nil {
			return nil, err
		}
	}
	if s.Cron == "" {
		return nil, d.errorAt(k, "schedule has no cron: give one such as cron: \"0 3 * * *\" or cron: \"@daily\"")
	}
	return s, nil
}
