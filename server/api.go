package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"raymond/analysis"
	"raymond/catalog"
	"raymond/daemon"
	"raymond/internal/spelling"
	"raymond/project"
	"raymond/state"
)

// Workflows is the catalog the API lists (*catalog.Catalog).
type Workflows interface {
	List() []catalog.Workflow
	Get(id string) (catalog.Workflow, bool)
	Changed() <-chan struct{}
}

// healthz says the daemon is up, or 503 once it is stopping: a proxy or a
// monitor then stops sending it work it would refuse.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if s.d != nil && s.d.Stopping() {
		writeError(w, http.StatusServiceUnavailable, "stopping",
			"the daemon is stopping: its runs park at their next step boundary and it starts no new one; it answers again once restarted")
		return
	}
	if s.d != nil {
		if err := s.d.Health(); err != nil {
			writeError(w, http.StatusServiceUnavailable, "cannot_write",
				"the daemon cannot write its state: "+err.Error())
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// DaemonStatus is GET /api/v1/daemon.
type DaemonStatus struct {
	Project string `json:"project"`
	Version string `json:"version"`
	PID     int    `json:"pid"`
	Runs    int    `json:"runs_driven"`
	daemon.GateStatus
}

func (s *Server) status() DaemonStatus {
	return DaemonStatus{Project: s.d.Project().Dir, Version: s.cfg.Version, PID: os.Getpid(),
		Runs: s.d.Active(), GateStatus: s.d.Gate().Status()}
}

func (s *Server) daemonStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.status())
}

func (s *Server) workflowList() []catalog.Workflow {
	if s.cfg.Workflows == nil {
		return []catalog.Workflow{}
	}
	list := s.cfg.Workflows.List()
	if list == nil {
		list = []catalog.Workflow{}
	}
	return list
}

func (s *Server) workflows(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"workflows": s.workflowList()})
}

func (s *Server) workflow(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	wf, ok := s.findWorkflow(id)
	if !ok {
		writeError(w, http.StatusNotFound, "workflow_not_found", s.noWorkflow(id))
		return
	}
	writeJSON(w, http.StatusOK, wf)
}

// noWorkflow says there is no workflow id, with the id it is probably a
// misspelling of.
func (s *Server) noWorkflow(id string) string {
	var ids []string
	for _, wf := range s.workflowList() {
		ids = append(ids, wf.ID)
	}
	if m := spelling.Suggest(id, ids); m != "" {
		return fmt.Sprintf("no workflow %q (did you mean %q?): GET /api/v1/workflows lists them", id, m)
	}
	return fmt.Sprintf("no workflow %q: GET /api/v1/workflows lists them", id)
}

func (s *Server) findWorkflow(id string) (catalog.Workflow, bool) {
	if s.cfg.Workflows == nil {
		return catalog.Workflow{}, false
	}
	return s.cfg.Workflows.Get(id)
}

// LaunchRequest is the body of POST /api/v1/runs.
type LaunchRequest struct {
	Workflow string   `json:"workflow"`
	Input    *string  `json:"input"`
	Budget   *float64 `json:"budget"`
	Model    *string  `json:"model"`
}

func (s *Server) launch(w http.ResponseWriter, r *http.Request) {
	var req LaunchRequest
	if !decode(w, r, &req, false) {
		return
	}
	if req.Workflow == "" {
		writeError(w, http.StatusBadRequest, "workflow_missing", `give the workflow's id: {"workflow": "ID"}; GET /api/v1/workflows lists them`)
		return
	}
	wf, ok := s.findWorkflow(req.Workflow)
	if !ok {
		writeError(w, http.StatusNotFound, "workflow_not_found", s.noWorkflow(req.Workflow))
		return
	}
	if !wf.Usable {
		writeJSON(w, http.StatusUnprocessableEntity, struct {
			apiError
			Findings any `json:"findings"`
		}{apiError: errBody("workflow_has_errors", fmt.Sprintf("workflow %s has errors; fix them first (raymond lint %s)", wf.ID, wf.Path)), Findings: wf.Errors})
		return
	}
	if msg := checkInput(wf, req.Input); msg != "" {
		writeError(w, http.StatusBadRequest, "bad_input", msg)
		return
	}
	l := daemon.Launch{Workflow: wf.Path, Input: req.Input, Budget: req.Budget}
	if req.Model != nil {
		l.Model = *req.Model
	}
	run, err := s.d.Launch(l)
	if err != nil && run == nil {
		var oe *project.OptionError
		if errors.As(err, &oe) {
			writeError(w, http.StatusBadRequest, "bad_option", err.Error())
			return
		}
		s.fail(w, r, err)
		return
	}
	detail, derr := s.d.Detail(run.WorkflowID)
	if derr != nil {
		s.fail(w, r, derr)
		return
	}
	w.Header().Set("Location", "/api/v1/runs/"+run.WorkflowID)
	if err != nil {
		// The run was made but could not be driven (the daemon stops):
		// it is there, waiting for the next start.
		s.log.Warn("run created but not started", "run", run.WorkflowID, "err", err)
	}
	writeJSON(w, http.StatusCreated, detail)
}

// checkInput says what is wrong with input for the workflow's manifest.
func checkInput(wf catalog.Workflow, input *string) string {
	if input != nil && strings.ContainsRune(*input, 0) {
		return "the input holds a NUL byte, which cannot be sent in a prompt; leave it out"
	}
	what := "an input"
	if wf.Input.Label != "" {
		what = wf.Input.Label
	}
	switch wf.Input.Mode {
	case "required":
		if input == nil || strings.TrimSpace(*input) == "" {
			msg := fmt.Sprintf("workflow %s needs %s: give a non-empty \"input\"", wf.ID, what)
			if wf.Input.Description != "" {
				msg += " (" + wf.Input.Description + ")"
			}
			return msg
		}
	case "none":
		if input != nil && *input != "" {
			return fmt.Sprintf("workflow %s takes no input: leave \"input\" out", wf.ID)
		}
	}
	return ""
}

func (s *Server) runs(w http.ResponseWriter, r *http.Request) {
	status, wfID := r.URL.Query().Get("status"), r.URL.Query().Get("workflow")
	if status != "" && !knownStatus(status) {
		writeError(w, http.StatusBadRequest, "bad_status", fmt.Sprintf("unknown status %q; one of %s", status, strings.Join(statuses, ", ")))
		return
	}
	var dir string
	if wfID != "" {
		wf, ok := s.findWorkflow(wfID)
		if !ok {
			writeError(w, http.StatusNotFound, "workflow_not_found", s.noWorkflow(wfID))
			return
		}
		dir = wf.Path
	}
	out := []project.Listing{}
	for _, l := range s.d.Runs() {
		if status != "" && l.ShownStatus() != status && string(l.Status) != status {
			continue
		}
		if dir != "" && !sameScope(l.ScopeDir, dir) {
			continue
		}
		out = append(out, l)
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": out})
}

// sameScope says whether a run's scope folder is the workflow at path (a
// folder workflow's states/ layout runs from its states/ folder).
func sameScope(scopeDir, path string) bool {
	return scopeDir == path || filepath.Dir(scopeDir) == path && filepath.Base(scopeDir) == "states"
}

var statuses = []string{string(state.StatusCreated), string(state.StatusRunning), string(state.StatusWaiting),
	string(state.StatusPaused), string(state.StatusAsking), string(state.StatusCompleted), string(state.StatusFailed),
	string(state.StatusBudgetExceeded), "interrupted"}

func knownStatus(s string) bool {
	for _, k := range statuses {
		if k == s {
			return true
		}
	}
	return false
}

// runID reads and checks the {id} of a path.
func (s *Server) runID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if state.ValidID(id) != nil {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("%q is not a run id: GET /api/v1/runs lists them", cut(id)))
		return "", false
	}
	return id, true
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	d, err := s.d.Detail(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) pause(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	if err := s.d.Pause(id); err != nil {
		s.fail(w, r, err)
		return
	}
	s.accepted(w, r, id)
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	if err := s.d.Cancel(id); err != nil {
		s.fail(w, r, err)
		return
	}
	s.accepted(w, r, id)
}

// ResumeRequest is the body of POST /api/v1/runs/{id}/resume.
type ResumeRequest struct {
	Budget *float64 `json:"budget"`
}

func (s *Server) resume(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	var req ResumeRequest
	if !decode(w, r, &req, true) {
		return
	}
	if err := s.d.Resume(id, req.Budget); err != nil {
		var oe *project.OptionError
		if errors.As(err, &oe) {
			writeError(w, http.StatusBadRequest, "bad_option", err.Error())
			return
		}
		s.fail(w, r, err)
		return
	}
	s.accepted(w, r, id)
}

// accepted answers 202 with the run as it is now.
func (s *Server) accepted(w http.ResponseWriter, r *http.Request, id string) {
	d, err := s.d.Detail(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, d)
}

func (s *Server) deleteRun(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	if err := s.d.Delete(id); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) asks(w http.ResponseWriter, r *http.Request) {
	asks := s.d.Asks()
	if asks == nil {
		asks = []daemon.PendingAsk{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"asks": asks})
}

// AnswerRequest is the body of POST /api/v1/runs/{id}/asks/{ask_id}.
type AnswerRequest struct {
	Answer *string `json:"answer"`
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	var req AnswerRequest
	if !decode(w, r, &req, false) {
		return
	}
	if req.Answer == nil {
		writeError(w, http.StatusBadRequest, "answer_missing", `give the answer: {"answer": "TEXT"}`)
		return
	}
	if strings.ContainsRune(*req.Answer, 0) {
		writeError(w, http.StatusBadRequest, "bad_answer", "the answer holds a NUL byte, which cannot be sent in a prompt; leave it out")
		return
	}
	askID := r.PathValue("ask_id")
	if len(askID) > maxAskID {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("%q is not an ask id: GET /api/v1/asks lists the pending asks", cut(askID)))
		return
	}
	if err := s.d.Answer(id, askID, *req.Answer); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ask_id": askID, "accepted": true})
}

// maxAskID is the length of the longest ask id the API looks for: ask ids
// are short (ask_main_worker2_7), and an id from the path is quoted back.
const maxAskID = 256

// cut shortens a value from the request for a message that quotes it.
func cut(s string) string {
	const most = 64
	if len(s) <= most {
		return s
	}
	return strings.ToValidUTF8(s[:most], "") + "…"
}

// reportLinkTTL is how long a signed report link works.
const reportLinkTTL = 10 * time.Minute

func (s *Server) reportLink(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	if _, err := s.d.Detail(id); err != nil {
		s.fail(w, r, err)
		return
	}
	exp := strconv.FormatInt(time.Now().Add(reportLinkTTL).Unix(), 10)
	u := "/api/v1/runs/" + id + "/report?exp=" + exp + "&sig=" + s.sign(id, exp)
	writeJSON(w, http.StatusOK, map[string]string{"url": u})
}

// sign returns the signature of a report link.
func (s *Server) sign(id, exp string) string {
	m := hmac.New(sha256.New, s.reportKey)
	m.Write([]byte(id + "\x00" + exp))
	return hex.EncodeToString(m.Sum(nil))
}

// signed says whether r carries a valid signed link for run id.
func (s *Server) signed(r *http.Request, id string) bool {
	q := r.URL.Query()
	exp, sig := q.Get("exp"), q.Get("sig")
	n, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || time.Now().Unix() > n || s.cfg.Token == "" {
		return false
	}
	return hmac.Equal([]byte(sig), []byte(s.sign(id, exp)))
}

func (s *Server) report(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	if !s.hasToken(r) && !s.signed(r, id) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="raymond"`)
		writeError(w, http.StatusUnauthorized, "unauthorized",
			"this needs the header 'Authorization: Bearer TOKEN', or a link from POST /api/v1/runs/{id}/report-link")
		return
	}
	detail, err := s.d.Detail(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if detail.Transcript == "" {
		writeError(w, http.StatusNotFound, "no_transcript", fmt.Sprintf("run %s has no transcript (it ran with --no-debug)", id))
		return
	}
	src := analysis.Source{Dir: detail.Transcript, State: detail.Run, Running: detail.DrivenBy != nil, Now: time.Now()}
	if detail.DrivenBy != nil {
		src.PID = *detail.DrivenBy
	}
	run, err := analysis.Load(src)
	if err != nil {
		s.fail(w, r, fmt.Errorf("read the transcript of run %s: %w", id, err))
		return
	}
	load := func(st *analysis.Step) (*analysis.Detail, error) { return analysis.LoadDetail(detail.Transcript, st) }
	// The report is one self-contained file with inline script and style;
	// it may load nothing and send nothing.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if err := analysis.WriteHTML(w, run, load); err != nil {
		s.log.Warn("report cut short", "run", id, "err", err)
	}
}
