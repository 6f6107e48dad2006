package catalog_test

import (
	"fmt"
	"testing"

	"raymond/catalog"
)

// BenchmarkNew measures reading a root of 100 folder workflows of five
// states each.
func BenchmarkNew(b *testing.B) {
	root := b.TempDir()
	files := make(map[string]string)
	for i := range 100 {
		dir := fmt.Sprintf("team%d/wf%d/", i%10, i)
		files[dir+"START.md"] = "<goto>A</goto>"
		files[dir+"A.md"] = "<call return=\"C\">B</call>"
		files[dir+"B.md"] = "<result>b</result>"
		files[dir+"C.md"] = "<ask next=\"D\">Go?</ask>"
		files[dir+"D.md"] = "You said {{input}}. <result>done</result>"
	}
	write(b, root, files)
	for b.Loop() {
		c, err := catalog.New([]string{root}, nil)
		if err != nil || len(c.List()) != 100 {
			b.Fatalf("new: %v, %d workflows", err, len(c.List()))
		}
	}
}
