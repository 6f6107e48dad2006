package parsing

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLookalikes(t *testing.T) {
	text := "Go on with <gotoo>NEXT</gotoo>, or <retrun to=\"A\">.\n" +
		"A real <goto>B</goto>, an <Goto>C</Goto>, `<gotoo>X</gotoo>` in code,\n" +
		"```\n<resut>x</resut>\n```\n" +
		"<example>a\nb</example> and a lone <br> or a < b > c.\n"
	got := Lookalikes(text)
	var names []string
	for _, l := range got {
		names = append(names, l.Name)
	}
	assert.Equal(t, []string{"gotoo", "retrun", "example"}, names)
	assert.Equal(t, "NEXT", got[0].Body)
	assert.Equal(t, []string{"to"}, got[1].Keys)
	assert.Equal(t, "", got[1].Body)
	assert.Equal(t, "a\nb", got[2].Body)
	assert.Equal(t, 11, got[0].Offset)
	assert.Nil(t, Lookalikes("no tags here"))
}
