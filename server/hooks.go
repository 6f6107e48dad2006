package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"raymond/daemon"
)

// MaxHookBody is the largest payload a hook reads; GitHub's issue and pull
// request events are far smaller.
const MaxHookBody = 1 << 20

// maxDeliveryID is the longest delivery id a hook takes (GitHub's are 36).
const maxDeliveryID = 128

// hook answers POST /api/v1/hooks/{name}: a delivery signed with the
// hook's secret (HMAC-SHA256 of the body, as GitHub's X-Hub-Signature-256
// or X-Raymond-Signature-256 say it) launches the hook's workflow. It needs
// no token: the signature stands for it. Nothing of the body is looked at
// before the signature is checked.
func (s *Server) hook(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var secret []byte
	ok := false
	if s.cfg.Hooks != nil {
		secret, ok = s.cfg.Hooks.Secret(name)
	}
	if !ok {
		writeError(w, http.StatusNotFound, "no_hook", fmt.Sprintf("no hook %q: the [[serve.hook]] entries of .raymond/config.toml name them", cut(name)))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxHookBody))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the payload is over %d bytes; nothing was launched", MaxHookBody))
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad_body", "the payload could not be read: "+err.Error())
		return
	}
	if !signed(r.Header, body, secret) {
		writeError(w, http.StatusUnauthorized, "bad_signature",
			"the signature is missing or wrong: sign the body with the hook's secret (HMAC-SHA256) in X-Hub-Signature-256: sha256=HEX; nothing was launched")
		return
	}
	id := r.Header.Get("X-GitHub-Delivery")
	if id == "" {
		id = r.Header.Get("X-Raymond-Delivery")
	}
	if msg := badDeliveryID(id); msg != "" {
		writeError(w, http.StatusBadRequest, "bad_delivery", msg)
		return
	}
	res, err := s.cfg.Hooks.Deliver(name, id, body)
	var tm *daemon.TooManyError
	switch {
	case errors.As(err, &tm):
		w.Header().Set("Retry-After", strconv.Itoa(int(tm.Retry.Seconds())+1))
		writeError(w, http.StatusTooManyRequests, "too_many", tm.Error()+"; nothing was launched")
		return
	case errors.Is(err, daemon.ErrInvalid):
		writeError(w, http.StatusUnprocessableEntity, "bad_payload", err.Error()+"; nothing was launched")
		return
	case err != nil:
		s.fail(w, r, err)
		return
	}
	status := http.StatusAccepted
	switch res.Result {
	case "launched":
		status = http.StatusCreated
		w.Header().Set("Location", "/api/v1/runs/"+res.RunID)
	case "duplicate":
		status = http.StatusOK
	}
	writeJSON(w, status, res)
}

// signed says whether the headers carry the HMAC-SHA256 of body under
// secret, as X-Hub-Signature-256 (GitHub's) or X-Raymond-Signature-256:
// "sha256=" and the hex digest.
func signed(h http.Header, body, secret []byte) bool {
	if len(secret) == 0 {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	want := mac.Sum(nil)
	for _, name := range []string{"X-Hub-Signature-256", "X-Raymond-Signature-256"} {
		v, ok := strings.CutPrefix(strings.TrimSpace(h.Get(name)), "sha256=")
		if !ok {
			continue
		}
		got, err := hex.DecodeString(v)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// badDeliveryID says what is wrong with a delivery id, "" when nothing.
func badDeliveryID(id string) string {
	switch {
	case id == "":
		return "the delivery has no id: send X-GitHub-Delivery or X-Raymond-Delivery with an id of its own (a UUID), which a delivery sent again keeps, so it launches once; nothing was launched"
	case len(id) > maxDeliveryID:
		return fmt.Sprintf("the delivery id is over %d characters; nothing was launched", maxDeliveryID)
	}
	for _, c := range id {
		if c < 0x21 || c > 0x7e {
			return "the delivery id holds a character other than printable ASCII; nothing was launched"
		}
	}
	return ""
}
