package parsing

import (
	"strconv"
	"strings"
	"testing"
)

// typicalAnswer is a 4 KiB final answer: prose, a list, a fenced block that
// quotes a tag, a print, and the transition at the end.
var typicalAnswer = func() string {
	var b strings.Builder
	b.WriteString("<print>Reviewing the changes</print>\n\nI read the diff and ran the tests.\n\n")
	for b.Len() < 3500 {
		b.WriteString("- The function `parse` now handles CRLF input; the table test covers <results> and `<goto>` mentions.\n")
		b.WriteString("```go\nfunc f() { return <goto>EXAMPLE</goto> }\n```\n")
	}
	b.WriteString("\nEverything passes, so I continue with the review.\n")
	for b.Len() < 4096-len(`<goto input="all green">REVIEW.md</goto>`)-1 {
		b.WriteByte(' ')
	}
	b.WriteString("\n<goto input=\"all green\">REVIEW.md</goto>")
	return b.String()
}()

// repeatTo repeats unit up to n bytes.
func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

const tenMiB = 10 << 20

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(typicalAnswer)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(typicalAnswer); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseNoTag10MiB(b *testing.B) {
	text := repeatTo("Plain prose with <b>markup</b>, a `code span`, and 3 < 4 > 2 comparisons.\n", tenMiB)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(text); err == nil {
			b.Fatal("found a tag")
		}
	}
}

// BenchmarkParseAdversarial measures inputs built to make a naive scanner
// quadratic; ns/op should grow linearly with size.
func BenchmarkParseAdversarial(b *testing.B) {
	units := map[string]string{
		"unclosed":        "<goto>x ",
		"unclosed-fork":   `<fork next="J">W `,
		"open-quotes":     `<goto input="a `,
		"mixed-quotes":    `<goto a='<goto b=" `,
		"prose-like":      "<goto tag ",
		"attributes":      ` <call a="1" b='2'`,
		"no-closing-gt":   "<goto a='x'>y</goto ",
		"backtick-runs":   "` `` ``` ```` ",
		"fences":          "```\n<goto>x\n",
		"closings":        "</goto></reset>",
		"lt-only":         "<<<<",
		"gt-after-errors": "<goto = > ",
	}
	for name, unit := range units {
		for _, size := range []int{1 << 20, tenMiB} {
			text := repeatTo(unit, size)
			b.Run(name+"/"+sizeName(size), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					_, _ = Parse(text)
				}
			})
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MiB"
	}
	return strconv.Itoa(n>>10) + "KiB"
}

func BenchmarkPrintScanner(b *testing.B) {
	text := repeatTo("streamed text <print>progress: step done</print> more text\n", 1<<20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewPrintScanner()
		for rest := text; rest != ""; {
			n := min(len(rest), 4096)
			s.Feed(rest[:n])
			rest = rest[n:]
		}
	}
}
