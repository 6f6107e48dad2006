package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"raymond/claude/fakeclaude"
)

// receivers are the OTLP receivers of the running scripts.
var receivers sync.Map // *testscript.TestScript → *receiver

// receiver is an OTLP/HTTP trace receiver on loopback: it keeps every span
// raymond exports, with the service name of its resource.
type receiver struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string
	headers  []string // the X- headers of the exports, as name=value
	bad      []string // what it could not decode
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req collectorpb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch {
	case r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf":
		rc.bad = append(rc.bad, fmt.Sprintf("%s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type")))
		http.Error(w, "not an OTLP/HTTP protobuf export", http.StatusBadRequest)
		return
	case err != nil:
		rc.bad = append(rc.bad, err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for name, values := range r.Header {
		if h := strings.ToLower(name) + "=" + strings.Join(values, ","); strings.HasPrefix(h, "x-") && !slices.Contains(rc.headers, h) {
			rc.headers = append(rc.headers, h)
		}
	}
	for _, rs := range req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" && !slices.Contains(rc.services, kv.Value.GetStringValue()) {
				rc.services = append(rc.services, kv.Value.GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collectorpb.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

// cmdOTLP is an OTLP/HTTP receiver for the scripts:
//
//	otlp start [-config] listen on loopback; sets OTEL_EXPORTER_OTLP_ENDPOINT,
//	                     or with -config only OTLP_URL, for a config file
//	otlp tree [-noid]    print the spans received as a tree (see tree),
//	                     with -noid without the run ids
//	otlp owner FILE      print the span the traceparent in FILE names
//	otlp calls           print, for each call of the fake claude, the span
//	                     its TRACEPARENT names, sorted
//	otlp spans           print how many spans arrived
//	otlp dump            print every name, attribute, event and status
//	                     message of every span, one a line
func cmdOTLP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: otlp start|tree|owner FILE|calls|spans|dump")
	}
	if args[0] == "start" && len(args) <= 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		rc := &receiver{}
		srv := &http.Server{Handler: rc}
		go func() { _ = srv.Serve(ln) }()
		ts.Defer(func() { _ = srv.Close() })
		receivers.Store(ts, rc)
		if len(args) == 2 && args[1] == "-config" {
			ts.Setenv("OTLP_URL", "http://"+ln.Addr().String())
		} else {
			ts.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+ln.Addr().String())
		}
		return
	}
	v, ok := receivers.Load(ts)
	if !ok {
		ts.Fatalf("otlp: no receiver; run otlp start first")
	}
	rc := v.(*receiver)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.bad) > 0 {
		ts.Fatalf("otlp: the receiver got what it could not read: %s", strings.Join(rc.bad, "; "))
	}
	switch {
	case args[0] == "tree" && (len(args) == 1 || len(args) == 2 && args[1] == "-noid"):
		fmt.Fprintf(ts.Stdout(), "services: %s\n", strings.Join(rc.services, " "))
		if len(rc.headers) > 0 {
			slices.Sort(rc.headers)
			fmt.Fprintf(ts.Stdout(), "headers: %s\n", strings.Join(rc.headers, " "))
		}
		tree(ts, rc.spans, len(args) == 2)
	case args[0] == "spans" && len(args) == 1:
		fmt.Fprintf(ts.Stdout(), "%d spans\n", len(rc.spans))
	case args[0] == "dump" && len(args) == 1:
		for _, s := range rc.spans {
			fmt.Fprintf(ts.Stdout(), "span %s status %q\n", s.Name, s.Status.GetMessage())
			for _, kv := range s.Attributes {
				fmt.Fprintf(ts.Stdout(), "  %s=%s\n", kv.Key, value(kv.Value))
			}
			for _, l := range s.Links {
				fmt.Fprintf(ts.Stdout(), "  link %s-%s\n", hex.EncodeToString(l.TraceId), hex.EncodeToString(l.SpanId))
			}
			for _, e := range s.Events {
				fmt.Fprintf(ts.Stdout(), "  event %s\n", e.Name)
				for _, kv := range e.Attributes {
					fmt.Fprintf(ts.Stdout(), "    %s=%s\n", kv.Key, value(kv.Value))
				}
			}
		}
	case args[0] == "owner" && len(args) == 2:
		fmt.Fprintln(ts.Stdout(), owner(rc.spans, strings.TrimSpace(ts.ReadFile(args[1]))))
	case args[0] == "calls" && len(args) == 1:
		calls, err := fakeclaude.ReadCalls(ts.Getenv("FAKE_CLAUDE_DIR"))
		ts.Check(err)
		var lines []string
		for _, c := range calls {
			lines = append(lines, owner(rc.spans, c.TraceParent))
		}
		slices.Sort(lines)
		for _, l := range lines {
			fmt.Fprintln(ts.Stdout(), l)
		}
	default:
		ts.Fatalf("usage: otlp start|tree|owner FILE|calls|spans|dump")
	}
}

// owner names the span a traceparent names: "step STATE of AGENT", or why
// it names none.
func owner(spans []*tracepb.Span, traceparent string) string {
	parts := strings.Split(traceparent, "-")
	if len(parts) != 4 || parts[0] != "00" {
		return fmt.Sprintf("no traceparent (%q)", traceparent)
	}
	for _, s := range spans {
		if hex.EncodeToString(s.TraceId) == parts[1] && hex.EncodeToString(s.SpanId) == parts[2] {
			return fmt.Sprintf("%s of %s", s.Name, attr(s, "raymond.agent.id"))
		}
	}
	return "no span for " + traceparent
}

// attr is the value of a span's attribute as text, "" when it has none.
func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return value(kv.Value)
		}
	}
	return ""
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	}
	return v.String()
}

// spanAttrs are the attributes tree prints, by the kind of span.
var spanAttrs = map[string][]string{
	"run":    {"raymond.run.id", "raymond.resumed", "raymond.run.status", "raymond.run.cost_usd"},
	"resume": {"raymond.run.id", "raymond.resumed", "raymond.run.status", "raymond.run.cost_usd"},
	"agent":  {"raymond.agent.parent", "raymond.agent.status"},
	"step": {"raymond.step.seq", "raymond.step.mode", "gen_ai.request.model", "raymond.step.outcome", "raymond.step.cost_usd",
		"gen_ai.usage.output_tokens"},
	"tool": {"gen_ai.tool.name"},
}

// tree prints the spans as a tree, each under its parent: the number of
// traces first, then each span's name, the attributes shown for its kind,
// whether it has a session (session) and a tool call id (call), and an
// error status. Agents are in the order of their ids, everything else in
// the order it started. A span whose parent did not arrive is an orphan.
func tree(ts *testscript.TestScript, spans []*tracepb.Span, noID bool) {
	traces := map[string]bool{}
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		traces[hex.EncodeToString(s.TraceId)] = true
		byID[hex.EncodeToString(s.SpanId)] = s
	}
	fmt.Fprintf(ts.Stdout(), "traces: %d\n", len(traces))
	children := map[string][]*tracepb.Span{}
	for _, s := range spans {
		parent := hex.EncodeToString(s.ParentSpanId)
		if _, ok := byID[parent]; !ok && len(s.ParentSpanId) > 0 {
			parent = "orphan"
		}
		children[parent] = append(children[parent], s)
	}
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		kids := children[parent]
		slices.SortStableFunc(kids, func(a, b *tracepb.Span) int {
			if strings.HasPrefix(a.Name, "agent ") && strings.HasPrefix(b.Name, "agent ") {
				return strings.Compare(a.Name, b.Name)
			}
			return int(int64(a.StartTimeUnixNano) - int64(b.StartTimeUnixNano))
		})
		for _, s := range kids {
			kind, _, _ := strings.Cut(s.Name, " ")
			line := strings.Repeat("  ", depth) + s.Name
			for _, key := range spanAttrs[kind] {
				if v := attr(s, key); v != "" && !(noID && key == "raymond.run.id") {
					line += fmt.Sprintf(" %s=%s", key[strings.LastIndex(key, ".")+1:], v)
				}
			}
			if attr(s, "gen_ai.conversation.id") != "" {
				line += " session"
			}
			if attr(s, "gen_ai.tool.call.id") != "" {
				line += " call"
			}
			if s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
				line += fmt.Sprintf(" ERROR(%s)", s.Status.GetMessage())
			}
			fmt.Fprintln(ts.Stdout(), line)
			walk(hex.EncodeToString(s.SpanId), depth+1)
		}
	}
	walk("", 0)
	if len(children["orphan"]) > 0 {
		fmt.Fprintln(ts.Stdout(), "orphans:")
		walk("orphan", 1)
	}
}
