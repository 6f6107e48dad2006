package parsing

import (
	"reflect"
	"strings"
	"testing"
)

// refPrints is a plain reading of the <print> rules, written independently
// of PrintScanner: a <print> whose closing tag starts at c and ends at e is
// kept when its bytes up to the closing '>' fit in limit, that is when
// e-1-b <= limit for a body starting at b; otherwise it is dropped at the
// byte b+limit and scanning resumes after it.
func refPrints(text string, limit int) []string {
	var out []string
	for i := 0; ; {
		p := strings.Index(text[i:], printOpen)
		if p < 0 {
			return out
		}
		p += i
		b := skipSpace(text, p+len(printOpen))
		if b >= len(text) || text[b] != '>' {
			i = p + 1
			continue
		}
		b++
		c, e := findClosing(text, printClose, b, len(text))
		if c >= 0 && e-1-b <= limit {
			out = append(out, strings.TrimSpace(text[b:c]))
			i = e
			continue
		}
		if b+limit+1 > len(text) {
			return out
		}
		i = b + limit + 1
	}
}

// feedChunks feeds text to s in chunks of the given sizes, cycling through
// them (byte by byte when there are none), and gathers the payloads.
func feedChunks(s *PrintScanner, text string, sizes []int) []string {
	var out []string
	for k := 0; text != ""; k++ {
		n := 1
		if len(sizes) > 0 {
			n = sizes[k%len(sizes)]
		}
		n = min(max(n, 1), len(text))
		out = append(out, s.Feed(text[:n])...)
		text = text[n:]
	}
	return out
}

func TestPrints(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"none", "no print here <p>x</p>", nil},
		{"one", "a <print>hello</print> b", []string{"hello"}},
		{"trimmed", "<print>\r\n  hello world \r\n</print>", []string{"hello world"}},
		{"several in order", "<print>1</print>x<print>2</print><print>3</print>", []string{"1", "2", "3"}},
		{"empty", "<print></print><print>  </print>", []string{"", ""}},
		{"whitespace in tags", "<print \n>a</print\t\r\n>", []string{"a"}},
		{"not a print", "<printer>a</printer><print x='1'>b</print><Print>c</Print>", nil},
		{"unclosed", "<print>never closed", nil},
		{"first closing ends it", "<print>a <print>b</print> c</print>", []string{"a <print>b"}},
		{"false closings are body", "<print>a </print x> </printer> </pri</print>", []string{"a </print x> </printer> </pri"}},
		{"restart on <", "<<print>a</print> <pri<print>b</print> </print</print>", []string{"a", "b"}},
		{"beside transition tags", "<print>working</print>\n<goto>NEXT</goto>", []string{"working"}},
		{"in code too", "`<print>x</print>`\n```\n<print>y</print>\n```", []string{"x", "y"}},
		{"unicode", "<print>ünïcødé 🚀</print>", []string{"ünïcødé 🚀"}},
		{"not decoded", "<print>&amp;</print>", []string{"&amp;"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Prints(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Prints = %q, want %q", got, tt.want)
			}
			if got := refPrints(tt.in, maxPrint); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("refPrints = %q, want %q (the reference is wrong)", got, tt.want)
			}
			if got := feedChunks(NewPrintScanner(), tt.in, nil); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("byte by byte = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPrintScannerSplitTags(t *testing.T) {
	text := "x<print>  first  </print>y<print >second</print >z"
	want := []string{"first", "second"}
	// Every way to cut the text in two or three pieces.
	for i := 0; i <= len(text); i++ {
		for j := i; j <= len(text); j++ {
			s := NewPrintScanner()
			got := append(append(s.Feed(text[:i]), s.Feed(text[i:j])...), s.Feed(text[j:])...)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("cut at %d and %d: got %q, want %q", i, j, got, want)
			}
		}
	}
}

func TestPrintScannerReturnsWhenCompleted(t *testing.T) {
	s := NewPrintScanner()
	steps := []struct {
		chunk string
		want  []string
	}{
		{"<pri", nil},
		{"nt>hel", nil},
		{"lo</print", nil},
		{">", []string{"hello"}},
		{"<print>a</print><print>b</", []string{"a"}},
		{"print>", []string{"b"}},
	}
	for _, st := range steps {
		if got := s.Feed(st.chunk); !reflect.DeepEqual(got, st.want) {
			t.Fatalf("Feed(%q) = %q, want %q", st.chunk, got, st.want)
		}
	}
}

func TestPrintScannerLimit(t *testing.T) {
	big := strings.Repeat("x", maxPrint)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		// The body and the closing tag up to its '>' must fit in maxPrint.
		{"fits", "<print>" + big[:maxPrint-len(printClose)] + "</print>", []string{big[:maxPrint-len(printClose)]}},
		{"too long", "<print>" + big[:maxPrint-len(printClose)+1] + "</print>", nil},
		{"never closed, then a print", "<print>" + big + big + "<print>after</print>", []string{"after"}},
		{"dropped body is not rescanned", "<print>" + big[:maxPrint-3] + "<print>in</print>" + "<print>out</print>", []string{"out"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Prints(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Prints: got %d payloads, want %d", len(got), len(tt.want))
			}
			if got := refPrints(tt.in, maxPrint); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("refPrints: got %d payloads, want %d", len(got), len(tt.want))
			}
			if got := feedChunks(NewPrintScanner(), tt.in, []int{4093, 1, 7}); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("chunked: got %d payloads, want %d", len(got), len(tt.want))
			}
		})
	}

	s := NewPrintScanner()
	s.Feed("<print>" + big + big)
	if cap(s.body) > maxPrint+1 {
		t.Errorf("the scanner holds %d bytes for an unclosed print", cap(s.body))
	}
}
