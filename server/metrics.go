package server

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"raymond/daemon"
	"raymond/step"
)

// NewMetrics returns the handler of /metrics for d, in the Prometheus text
// format: runs by status, steps running and waiting at the gate, steps by
// outcome, step latency, cost, usage-limit hits, and the process's own
// figures. It observes every step that passes d's gate from now on.
func NewMetrics(d *daemon.Daemon) http.Handler {
	reg := prometheus.NewRegistry()
	steps := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "raymond_steps_total", Help: "Steps ended, by outcome (succeeded, transient, usage_limit, budget_exhausted, unusable, canceled, failed).",
	}, []string{"outcome"})
	latency := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "raymond_step_duration_seconds",
		Help:    "How long steps ran, from their start at the gate to their end.",
		Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600},
	})
	cost := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "raymond_cost_usd_total", Help: "What the daemon's steps cost, in USD, since it started.",
	})
	limits := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "raymond_usage_limit_waits_total", Help: "Steps that hit the account's usage limit (each holds every run until the reset).",
	})
	reg.MustRegister(steps, latency, cost, limits, &runsCollector{d: d},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	d.Gate().Observe(func(res step.Result, ran time.Duration) {
		steps.WithLabelValues(outcomeLabel(res.Outcome)).Inc()
		latency.Observe(ran.Seconds())
		if res.Billed && res.CostUSD > 0 {
			cost.Add(res.CostUSD)
		}
		if res.Outcome == step.UsageLimit {
			limits.Inc()
		}
	})
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

func outcomeLabel(o step.Outcome) string {
	switch o {
	case step.Succeeded:
		return "succeeded"
	case step.Transient:
		return "transient"
	case step.UsageLimit:
		return "usage_limit"
	case step.BudgetExhausted:
		return "budget_exhausted"
	case step.Unusable:
		return "unusable"
	case step.Canceled:
		return "canceled"
	case step.Failed:
		return "failed"
	}
	return "unknown"
}

// runsCollector reads the daemon's runs and gate at each scrape.
type runsCollector struct{ d *daemon.Daemon }

var (
	runsDesc    = prometheus.NewDesc("raymond_runs", "Runs of the project, by status.", []string{"status"}, nil)
	drivenDesc  = prometheus.NewDesc("raymond_runs_driven", "Runs the daemon drives now.", nil, nil)
	runningDesc = prometheus.NewDesc("raymond_steps_running", "Steps running now (past the gate).", nil, nil)
	waitingDesc = prometheus.NewDesc("raymond_steps_waiting", "Steps waiting at the gate for a slot.", nil, nil)
	spendDesc   = prometheus.NewDesc("raymond_spend_today_usd", "What the daemon's steps cost today (local time).", nil, nil)
	heldDesc    = prometheus.NewDesc("raymond_gate_held", "1 while no step may start (a usage limit, or the daily cap).", nil, nil)
	asksDesc    = prometheus.NewDesc("raymond_asks_pending", "Asks waiting for an answer.", nil, nil)
)

func (c *runsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{runsDesc, drivenDesc, runningDesc, waitingDesc, spendDesc, heldDesc, asksDesc} {
		ch <- d
	}
}

func (c *runsCollector) Collect(ch chan<- prometheus.Metric) {
	counts := make(map[string]int)
	for _, s := range statuses {
		counts[s] = 0
	}
	for _, l := range c.d.Runs() {
		counts[l.ShownStatus()]++
	}
	for s, n := range counts {
		ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.GaugeValue, float64(n), s)
	}
	g := c.d.Gate().Status()
	held := 0.0
	if g.HeldUntil != nil {
		held = 1
	}
	ch <- prometheus.MustNewConstMetric(drivenDesc, prometheus.GaugeValue, float64(c.d.Active()))
	ch <- prometheus.MustNewConstMetric(runningDesc, prometheus.GaugeValue, float64(g.StepsRunning))
	ch <- prometheus.MustNewConstMetric(waitingDesc, prometheus.GaugeValue, float64(g.StepsWaiting))
	ch <- prometheus.MustNewConstMetric(spendDesc, prometheus.GaugeValue, g.SpendTodayUSD)
	ch <- prometheus.MustNewConstMetric(heldDesc, prometheus.GaugeValue, held)
	ch <- prometheus.MustNewConstMetric(asksDesc, prometheus.GaugeValue, float64(len(c.d.Asks())))
}
