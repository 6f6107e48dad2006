package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

var completionHelp = help{
	name:  "completion",
	usage: "raymond completion bash|zsh|fish",
	text: `
Print a shell completion script: commands, their flags, run ids (with 'last')
where a command takes one, and files and folders for workflows and paths.
Load it from your shell's startup file.`,
	examples: []string{
		"source <(raymond completion bash)          # in ~/.bashrc",
		"source <(raymond completion zsh)           # in ~/.zshrc",
		"raymond completion fish > ~/.config/fish/completions/raymond.fish",
	},
}

// runIDCommands are the commands whose arguments are run ids.
var runIDCommands = []string{"resume", "status", "answer", "transcript", "rm", "publish", "discard"}

func runCompletion(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("completion")
	ids := fs.Bool("run-ids", false, "print the ids of this project's runs, one a line (what the scripts call)")
	projectDir := fs.String("project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	if done, err := parseFlags(fs, args, completionHelp, env.stdout); done || err != nil {
		return err
	}
	if *ids {
		p, err := openProject(*projectDir, false)
		if err != nil {
			return nil // nothing to complete outside a project
		}
		list, _ := runIDs(p.Store)
		for _, id := range list {
			fmt.Fprintln(env.stdout, id)
		}
		return nil
	}
	shell, err := oneArg(fs.Args(), completionHelp, "shell (bash, zsh or fish)")
	if err != nil {
		return err
	}
	flags := commandFlags()
	switch shell {
	case "bash":
		writeBash(env.stdout, flags)
	case "zsh":
		io.WriteString(env.stdout, "autoload -U +X bashcompinit && bashcompinit\n")
		writeBash(env.stdout, flags)
	case "fish":
		writeFish(env.stdout, flags)
	default:
		return completionHelp.usageError("unknown shell %q; give bash, zsh or fish%s", shell, didYouMean(shell, "", []string{"bash", "zsh", "fish"}))
	}
	return nil
}

// flagLine matches a flag in a command's help: "  -q, --quiet   text".
var flagLine = regexp.MustCompile(`^\s+(?:-(\w), )?--([\w-]+)(?: \S+)?\s+(.*)$`)

// commandFlags returns each command's long flags (with --) and their help
// text, read from the command's own --help so they cannot drift.
func commandFlags() map[string][][2]string {
	flags := map[string][][2]string{}
	for _, c := range commands() {
		var out bytes.Buffer
		_ = c.run(context.Background(), &cmdEnv{stdout: &out, stderr: io.Discard, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}, []string{"--help"})
		in := false
		for l := range strings.SplitSeq(out.String(), "\n") {
			switch {
			case l == "Flags:":
				in = true
			case in && l == "":
				in = false
			case in:
				if m := flagLine.FindStringSubmatch(l); m != nil {
					flags[c.name] = append(flags[c.name], [2]string{"--" + m[2], m[3]})
					if m[1] != "" {
						flags[c.name] = append(flags[c.name], [2]string{"-" + m[1], m[3]})
					}
				}
			}
		}
		flags[c.name] = append(flags[c.name], [2]string{"--help", "show the command's help"})
	}
	return flags
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return append(names, "help")
}

func writeBash(w io.Writer, flags map[string][][2]string) {
	var b strings.Builder
	b.WriteString("# raymond completion for bash (raymond completion bash)\n")
	b.WriteString("_raymond() {\n")
	b.WriteString("  local cur=\"${COMP_WORDS[COMP_CWORD]}\" cmd=\"${COMP_WORDS[1]}\" words=\"\"\n")
	b.WriteString("  local prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n")
	b.WriteString("  if [ \"$cmd\" = list ] && [ \"$prev\" = --status ]; then\n")
	fmt.Fprintf(&b, "    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", strings.Join(listStatuses, " "))
	b.WriteString("  if [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(&b, "    words=%q\n", strings.Join(append(commandNames(), "--help", "--version", "-h", "-v"), " "))
	b.WriteString("  elif [[ \"$cur\" == -* ]]; then\n    case \"$cmd\" in\n")
	names := make([]string, 0, len(flags))
	for n := range flags {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var fl []string
		for _, f := range flags[n] {
			fl = append(fl, f[0])
		}
		fmt.Fprintf(&b, "      %s) words=%q ;;\n", n, strings.Join(fl, " "))
	}
	b.WriteString("    esac\n  else\n    case \"$cmd\" in\n")
	fmt.Fprintf(&b, "      %s) words=\"$(raymond completion --run-ids 2>/dev/null) last\" ;;\n", strings.Join(runIDCommands, "|"))
	b.WriteString("      run) words=\"$(raymond completion --run-ids 2>/dev/null) last\" ;;\n")
	fmt.Fprintf(&b, "      help) words=%q ;;\n", strings.Join(commandNames(), " "))
	b.WriteString("      completion) words=\"bash zsh fish\" ;;\n")
	b.WriteString("    esac\n  fi\n")
	b.WriteString("  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n")
	// A workflow is a file or a folder: raymond WORKFLOW, raymond run.
	b.WriteString("  if [[ \"$cur\" != -* ]] && { [ \"$COMP_CWORD\" -eq 1 ] || [ \"$cmd\" = run ]; }; then\n")
	b.WriteString("    COMPREPLY+=($(compgen -f -- \"$cur\"))\n  fi\n")
	b.WriteString("}\n")
	// -o default: files and folders (test files, transcript folders) when
	// no word matches.
	b.WriteString("complete -o default -o bashdefault -F _raymond raymond\n")
	io.WriteString(w, b.String())
}

func writeFish(w io.Writer, flags map[string][][2]string) {
	var b strings.Builder
	b.WriteString("# raymond completion for fish (raymond completion fish)\n")
	synopsis := map[string]string{"help": "show a command's help"}
	for _, c := range commands() {
		synopsis[c.name] = c.synopsis
	}
	for _, n := range commandNames() {
		fmt.Fprintf(&b, "complete -c raymond -n __fish_use_subcommand -a %s -d %s\n", n, fishQuote(synopsis[n]))
	}
	names := make([]string, 0, len(flags))
	for n := range flags {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, f := range flags[n] {
			opt := "-l " + strings.TrimPrefix(f[0], "--")
			if !strings.HasPrefix(f[0], "--") {
				opt = "-s " + strings.TrimPrefix(f[0], "-")
			}
			fmt.Fprintf(&b, "complete -c raymond -n '__fish_seen_subcommand_from %s' %s -d %s\n", n, opt, fishQuote(firstClause(f[1])))
		}
	}
	fmt.Fprintf(&b, "complete -c raymond -n '__fish_seen_subcommand_from %s run' -a '(raymond completion --run-ids 2>/dev/null) last'\n", strings.Join(runIDCommands, " "))
	fmt.Fprintf(&b, "complete -c raymond -n '__fish_seen_subcommand_from help' -f -a %s\n", fishQuote(strings.Join(commandNames(), " ")))
	b.WriteString("complete -c raymond -n '__fish_seen_subcommand_from completion' -f -a 'bash zsh fish'\n")
	fmt.Fprintf(&b, "complete -c raymond -n '__fish_seen_subcommand_from list' -l status -x -a %s\n", fishQuote(strings.Join(listStatuses, " ")))
	io.WriteString(w, b.String())
}

// firstClause shortens a flag's help to what fits a completion menu.
func firstClause(s string) string {
	if i := strings.IndexAny(s, ";("); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// fishQuote quotes s for fish, in single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
