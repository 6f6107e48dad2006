package lint

import (
	"fmt"
	"slices"
	"strings"

	"raymond/internal/spelling"
	"raymond/parsing"
	"raymond/project"
)

// model checks the model a state names: a name that cannot be a model, or
// a misspelt alias, is an error (claude would fail every step, or run a
// model nobody chose); a Claude model id raymond does not know is a
// warning, since it may be newer than raymond.
func (c *checker) model(n *node, model string) {
	if model == "" {
		return
	}
	if err := project.CheckModel(model); err != nil {
		fix := fmt.Sprintf("give an alias (%s) or a full model id", strings.Join(project.ModelAliases, ", "))
		if s := project.SuggestModel(model); s != "" {
			fix = fmt.Sprintf("did you mean %q?", s)
		}
		c.report("invalid-model", Error, c.at(n, model), err.Error(), fix)
		return
	}
	if w := project.ModelWarning(model); w != "" {
		fix := "check the id against the models your account offers; an alias (" + strings.Join(project.ModelAliases, ", ") + ") always names a current one"
		if s := project.SuggestModel(model); s != "" {
			fix = fmt.Sprintf("did you mean %q?", s)
		}
		c.report("unknown-model", Warning, c.at(n, model), didYouMeanSuffixRE.ReplaceAllString(w, ""), fix)
	}
}

// transitionKeys are the attributes that only transition tags take: an
// opening tag that has one is meant as a transition.
var transitionKeys = []string{"return", "next", "timeout_next", "input", "cd", "task", "timeout"}

// lookalikes reports the tag-shaped text of n's prompt whose name is a
// transition tag's misspelt (<gotoo>X</gotoo>, <retrun next="A">): the
// model emits it as written and the run sees no tag. It is an error when
// the text is plainly a transition (its body names a state, or it has an
// attribute only transitions take), else a warning; text that is not
// close to a tag's name (<example>…</example>), or whose body is prose, is
// left alone.
func (c *checker) lookalikes(si *scopeInfo, n *node) {
	for _, l := range parsing.Lookalikes(n.st.Body) {
		want := suggestTag(l.Name)
		if want == "" {
			continue
		}
		body := strings.TrimSpace(l.Body)
		attr := slices.ContainsFunc(l.Keys, func(k string) bool { return slices.Contains(transitionKeys, k) })
		if !attr && (body == "" || strings.ContainsAny(body, " \t\n") || templated(body)) {
			// Prose or a placeholder in a tag of its own, such as
			// <results>All passed</results> or <task>{{input}}</task>.
			continue
		}
		sev := Warning
		if _, err := si.s.Resolve(body); attr || body != "" && err == nil {
			sev = Error
		}
		raw := "<" + l.Name + ">"
		c.report("unknown-tag", sev, c.inBody(n, l.Offset),
			fmt.Sprintf("%s is no transition tag, so an agent that writes it is read as giving none", raw),
			fmt.Sprintf("did you mean <%s>?", want))
	}
}

// suggestTag returns the transition tag name is probably a misspelling of,
// or "". A short name must be one edit away, so that <task> or <all> in a
// prompt are not taken for <ask> or <call>.
func suggestTag(name string) string {
	s := spelling.Suggest(name, parsing.Names)
	if s == "" {
		return ""
	}
	if d := spelling.Distance(strings.ToLower(name), s); d > 1 && len(name) <= 6 {
		return ""
	}
	return s
}
