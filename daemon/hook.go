package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"raymond/project"
)

// DeliveryFile remembers, in the project's .raymond folder, the delivery
// ids of the hooks' deliveries that launched a run, so that a delivery sent
// again (a replay, or a retry) launches nothing, across restarts too.
const DeliveryFile = "serve-deliveries.json"

// The delivery ids kept: the last maxDeliveries, none older than
// deliveryAge. A sender must hold the secret to have an id kept at all.
const (
	maxDeliveries = 10000
	deliveryAge   = 7 * 24 * time.Hour
)

// A hook launches at most hookBurst runs at once, and then one per
// hookRefill: a sender with the secret cannot start runs without bound.
const (
	hookBurst  = 10
	hookRefill = 6 * time.Second
)

// ErrTooMany is a delivery refused because its hook launched too many runs
// lately; Retry says when to try again.
var ErrTooMany = errors.New("too many deliveries")

// Hooks are the daemon's webhooks ([[serve.hook]]): a delivery whose
// signature the server checked launches the hook's workflow when its
// payload passes the hook's filter, with an input made from the payload.
// Its methods are safe for concurrent use.
type Hooks struct {
	d     *Daemon
	cat   Catalog
	hooks map[string]*hook
	path  string

	mu   sync.Mutex
	seen []delivery // oldest first
	ids  map[string]bool
}

// hook is one hook with its secret and its launch allowance.
type hook struct {
	project.Hook
	secret []byte
	tokens float64
	filled time.Time
}

// delivery is one remembered delivery.
type delivery struct {
	Hook string    `json:"hook"`
	ID   string    `json:"id"`
	At   time.Time `json:"at"`
}

// HookResult is what a delivery did.
type HookResult struct {
	// Result is "launched", "duplicate" or "filtered".
	Result  string `json:"result"`
	Message string `json:"message"`
	// RunID is the run launched, "" when none was.
	RunID string `json:"run_id,omitempty"`
}

// CheckHook says what is wrong with a config's hook for the workflows of
// cat: a workflow it does not list. The error names the hook; the caller
// names the file.
func CheckHook(h project.Hook, cat Catalog) error {
	if _, ok := cat.Get(h.Workflow); !ok {
		return fmt.Errorf("[[serve.hook]] %q: %s", h.Name, noWorkflow(cat, h.Workflow))
	}
	return nil
}

// NewHooks returns the daemon's hooks; secrets are their secrets by name.
// It reads the delivery ids DeliveryFile kept.
func (d *Daemon) NewHooks(list []project.Hook, secrets map[string][]byte, cat Catalog) *Hooks {
	h := &Hooks{d: d, cat: cat, hooks: make(map[string]*hook, len(list)), path: filepath.Join(d.dir, DeliveryFile),
		ids: make(map[string]bool)}
	for _, c := range list {
		h.hooks[c.Name] = &hook{Hook: c, secret: secrets[c.Name], tokens: hookBurst, filled: d.clock.Now()}
	}
	if data, err := os.ReadFile(h.path); err == nil {
		var f deliveryFile
		if err := json.Unmarshal(data, &f); err != nil {
			d.log.Warn("cannot read the hooks' delivery ids; a delivery sent again may launch a second run", "file", h.path, "err", err)
		}
		for _, v := range f.Deliveries {
			h.seen = append(h.seen, v)
			h.ids[v.Hook+"\n"+v.ID] = true
		}
	}
	return h
}

// deliveryFile is DeliveryFile's content.
type deliveryFile struct {
	Deliveries []delivery `json:"deliveries"`
}

// Secret returns the secret of hook name, and whether there is such a hook.
func (h *Hooks) Secret(name string) ([]byte, bool) {
	k, ok := h.hooks[name]
	if !ok {
		return nil, false
	}
	return k.secret, true
}

// Names returns the hooks' names.
func (h *Hooks) Names() []string {
	out := make([]string, 0, len(h.hooks))
	for n := range h.hooks {
		out = append(out, n)
	}
	return out
}

// Deliver handles a delivery of hook name, whose signature was checked: id
// is its delivery id, body its payload (JSON). A payload that is not JSON,
// or that the input template cannot be made from, is ErrInvalid; a hook
// that launched too many runs lately, ErrTooMany.
func (h *Hooks) Deliver(name, id string, body []byte) (HookResult, error) {
	k, ok := h.hooks[name]
	if !ok {
		return HookResult{}, errorf(ErrNotFound, "no hook %q: the config's [[serve.hook]] entries name them", name)
	}
	var payload any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&payload); err != nil {
		return HookResult{}, errorf(ErrInvalid, "the payload is not JSON (%v): send the webhook with content type application/json", err)
	}
	key := name + "\n" + id
	h.mu.Lock()
	dup := h.ids[key]
	h.mu.Unlock()
	if dup {
		return HookResult{Result: "duplicate", Message: fmt.Sprintf("duplicate, ignored: delivery %s was received already", id)}, nil
	}
	for _, c := range k.Filter {
		if !c.Match(payload) {
			return HookResult{Result: "filtered", Message: fmt.Sprintf("filtered: the payload does not meet %q; nothing was launched", c.Text)}, nil
		}
	}
	var input *string
	if k.Input != nil {
		var b strings.Builder
		if err := k.Input.Execute(&b, payload); err != nil {
			return HookResult{}, errorf(ErrInvalid, "the hook's input cannot be made from this payload: %v", strings.TrimPrefix(err.Error(), "template: "))
		}
		in := b.String()
		input = &in
	}
	wf, ok := h.cat.Get(k.Workflow)
	if !ok {
		return HookResult{}, errorf(ErrNotFound, "hook %s: %s", name, noWorkflow(h.cat, k.Workflow))
	}
	if msg := inputProblem(wf, input); msg != "" {
		return HookResult{}, errorf(ErrInvalid, "hook %s: %s", name, msg)
	}
	// Taken and remembered at once: the same delivery sent twice at the
	// same time launches one run.
	h.mu.Lock()
	if h.ids[key] {
		h.mu.Unlock()
		return HookResult{Result: "duplicate", Message: fmt.Sprintf("duplicate, ignored: delivery %s was received already", id)}, nil
	}
	if wait := h.take(k); wait > 0 {
		h.mu.Unlock()
		return HookResult{}, &TooManyError{Retry: wait, Msg: fmt.Sprintf("hook %s launched %d runs lately: it launches one more every %s", name, hookBurst, hookRefill)}
	}
	h.remember(delivery{Hook: name, ID: id, At: h.d.clock.Now()})
	h.mu.Unlock()
	run, err := h.d.Launch(Launch{Workflow: wf.Path, Input: input, Budget: k.Budget})
	if err != nil && run == nil {
		// Nothing was launched: the same delivery sent again may launch.
		h.mu.Lock()
		h.forget(key)
		h.mu.Unlock()
		return HookResult{}, err
	}
	h.d.log.Info("hook launched a run", "hook", name, "delivery", id, "run", run.WorkflowID)
	return HookResult{Result: "launched", Message: fmt.Sprintf("launched run %s of %s", run.WorkflowID, wf.ID), RunID: run.WorkflowID}, nil
}

// TooManyError is ErrTooMany with when to try again.
type TooManyError struct {
	Retry time.Duration
	Msg   string
}

func (e *TooManyError) Error() string        { return e.Msg }
func (e *TooManyError) Is(target error) bool { return target == ErrTooMany }

// take takes one launch from k's allowance, or says how long until there
// is one; h.mu is held.
func (h *Hooks) take(k *hook) time.Duration {
	now := h.d.clock.Now()
	if el := now.Sub(k.filled); el > 0 {
		k.tokens = min(hookBurst, k.tokens+float64(el)/float64(hookRefill))
	}
	k.filled = now
	if k.tokens < 1 {
		return time.Duration((1 - k.tokens) * float64(hookRefill))
	}
	k.tokens--
	return 0
}

// remember keeps a delivery's id, durably; h.mu is held.
func (h *Hooks) remember(v delivery) {
	h.add(v)
	h.save()
}

// add keeps a delivery's id, and drops those past the bounds; h.mu is held.
func (h *Hooks) add(v delivery) {
	h.seen = append(h.seen, v)
	h.ids[v.Hook+"\n"+v.ID] = true
	cut := 0
	for cut < len(h.seen) && (len(h.seen)-cut > maxDeliveries || v.At.Sub(h.seen[cut].At) > deliveryAge) {
		delete(h.ids, h.seen[cut].Hook+"\n"+h.seen[cut].ID)
		cut++
	}
	// The dropped head is let go of when append next copies.
	h.seen = h.seen[cut:]
}

// forget drops the delivery key; h.mu is held.
func (h *Hooks) forget(key string) {
	delete(h.ids, key)
	for i, v := range h.seen {
		if v.Hook+"\n"+v.ID == key {
			h.seen = append(h.seen[:i], h.seen[i+1:]...)
			break
		}
	}
	h.save()
}

// save writes DeliveryFile; h.mu is held.
func (h *Hooks) save() {
	data, err := json.Marshal(deliveryFile{Deliveries: h.seen})
	if err == nil {
		err = writeFileAtomic(h.path, append(data, '\n'))
	}
	if err != nil {
		h.d.health.failed("write the hooks' delivery ids", err)
		h.d.log.Error("cannot write the hooks' delivery ids; a delivery sent again may launch a second run", "file", h.path, "err", err)
	}
}
