package parsing

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// seeds are interesting answers for both fuzz targets; the committed corpus
// under testdata/fuzz holds more.
var seeds = []string{
	"",
	"<goto>NEXT</goto>",
	"prose\r\n<goto input=\"a &amp; b\">NEXT.md</goto>\r\n",
	"<result>done <goto>X</goto></result>",
	"`<goto>A</goto>` <reset cd='..'>B</reset>",
	"```\n<goto>A</goto>\n```\n",
	`<fork next="J" item="1">W</fork><fork next="J" item="2">W</fork>`,
	"<fork>W</fork><goto>MAIN</goto>",
	"<call return=\"R\">T</call><print>hi</print>",
	"<goto/>",
	"<goto>NEXT",
	"<goto x='1' x='2'>N</goto>",
	"<print>a</print\n><print>b",
	`<call-workflow return="R">../lib/review</call-workflow>`,
	`<fork-workflow next="J" task="new">../x</fork-workflow><fork next="J">W</fork>`,
	`<ask next="N" timeout="7d" timeout_next="L" upload_a="x">Ship it?</ask>`,
	"<reset-workflow task='new'>a\\b</reset-workflow><call-workflows>",
	`<await next="N">Approve?</await><fork-workflow next="N" cwd="w">../x</fork-workflow>`,
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := Parse(text)
		if err != nil {
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("error %v is a %T, not an *Error", err, err)
			}
			if _, ok := kindNames[perr.Kind]; !ok || perr.Msg == "" {
				t.Fatalf("error without a kind or a message: %#v", perr)
			}
			if !reflect.DeepEqual(tr, Transition{}) {
				t.Fatalf("transition %+v beside error %v", tr, err)
			}
			return
		}
		for _, tag := range append([]Tag{tr.Tag}, tr.Forks...) {
			checkParsedTag(t, text, tag)
		}
		switch len(tr.Forks) {
		case 0:
			if Forks(tr.Tag.Name) {
				t.Fatal("a fork outside Forks")
			}
		case 1:
			if tr.Tag.Name != Goto && !reflect.DeepEqual(tr.Tag, tr.Forks[0]) {
				t.Fatalf("single fork: Tag %+v is neither a goto nor the fork", tr.Tag)
			}
		default:
			if tr.Tag.Name != Goto {
				t.Fatalf("fan-out continues with %s, not goto", tr.Tag.Name)
			}
		}
		tags, err := Tags(text)
		if err != nil {
			t.Fatalf("Parse succeeded but Tags failed: %v", err)
		}
		if want := len(tr.Forks) + 1; len(tags) != want && len(tags) != want-1 {
			t.Fatalf("Tags found %d tags for a transition with %d forks", len(tags), len(tr.Forks))
		}
	})
}

// checkParsedTag checks one tag of a successful Parse against its text.
func checkParsedTag(t *testing.T, text string, tag Tag) {
	t.Helper()
	if tag.Offset < 0 || tag.Offset+len(tag.Raw) > len(text) || text[tag.Offset:tag.Offset+len(tag.Raw)] != tag.Raw {
		t.Fatalf("Offset %d and Raw %q disagree with the text", tag.Offset, tag.Raw)
	}
	if !strings.HasPrefix(tag.Raw, "<"+tag.Name) && !strings.HasPrefix(tag.Raw, "<"+Fork) &&
		(tag.Name != Ask || !strings.HasPrefix(tag.Raw, "<"+await)) {
		// (A synthetic goto carries the Raw of the first fork; an ask may
		// be written as the original Raymond's <await>.)
		t.Fatalf("Raw %q does not start with <%s", tag.Raw, tag.Name)
	}
	if !strings.HasSuffix(tag.Raw, ">") || !strings.Contains(tag.Raw, "</") {
		t.Fatalf("Raw %q has no closing tag", tag.Raw)
	}
	switch {
	case tag.Name == Result:
		if tag.Target != "" || len(tag.Attrs) != 0 {
			t.Fatalf("result with a target or attributes: %+v", tag)
		}
		return
	case tag.Name == Ask:
		if tag.Target != "" || tag.Payload == "" || !hasAttr(tag, "next") {
			t.Fatalf("ask with a target, without a question or without next: %+v", tag)
		}
	case CrossWorkflow(tag.Name):
		if err := ValidSpecifier(tag.Target); err != nil {
			t.Fatalf("accepted specifier %q: %v", tag.Target, err)
		}
	default:
		if err := ValidTarget(tag.Target); err != nil {
			t.Fatalf("accepted target %q: %v", tag.Target, err)
		}
	}
	for _, a := range tag.Attrs {
		if StateAttr(tag.Name, a.Key) {
			if err := ValidTarget(a.Value); err != nil {
				t.Fatalf("accepted %s=%q: %v", a.Key, a.Value, err)
			}
		}
	}
	if specs[tag.Name].required == "return" && !hasAttr(tag, "return") {
		t.Fatalf("accepted %s without return", tag.Name)
	}
}

// hasAttr reports whether t has the attribute key.
func hasAttr(t Tag, key string) bool {
	_, ok := t.Attr(key)
	return ok
}

func FuzzPrintScanner(f *testing.F) {
	for i, s := range seeds {
		f.Add(s, []byte{byte(i + 1), 3, 1}, uint8(i*7))
	}
	f.Add("<print>"+strings.Repeat("ab", 40)+"</print><print>x</print>", []byte{5}, uint8(20))
	f.Fuzz(func(t *testing.T, text string, cuts []byte, limit uint8) {
		sizes := make([]int, len(cuts))
		for i, c := range cuts {
			sizes[i] = int(c)
		}
		whole := Prints(text)
		if want := refPrints(text, maxPrint); !reflect.DeepEqual(whole, want) {
			t.Fatalf("Prints = %q, reference %q", whole, want)
		}
		if got := feedChunks(NewPrintScanner(), text, sizes); !reflect.DeepEqual(got, whole) {
			t.Fatalf("chunked %v: %q, whole: %q", sizes, got, whole)
		}
		// A small limit exercises dropping and resynchronizing.
		l := int(limit)
		small := &PrintScanner{limit: l}
		if got, want := feedChunks(small, text, sizes), refPrints(text, l); !reflect.DeepEqual(got, want) {
			t.Fatalf("limit %d, chunked %v: %q, reference %q", l, sizes, got, want)
		}
		if len(small.body) > l+1 {
			t.Fatalf("limit %d but %d bytes buffered", l, len(small.body))
		}
	})
}
