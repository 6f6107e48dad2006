// Package parsing reads transition tags out of a step's final answer, or a
// script's stdout, as the protocol (../shared/spec/protocol.md §3, §5, §5.1,
// §5.6, §14, §15 and §16) defines them.
//
// It knows the grammar (names, attributes, bodies), the exactly-one rule,
// multi-fork fan-out, attribute rules per tag and the path safety of targets.
// It knows nothing about files or policies: the prompts package checks a
// decoded transition against a state's frontmatter and the scope's files.
//
// # Grammar
//
// The transition tags are goto, reset, call, function, fork, result, ask,
// call-workflow, function-workflow, fork-workflow and reset-workflow,
// case-sensitive. A tag is <name attrs>body</name>, and the name must be
// followed by whitespace or '>': <results>, <forked>, <gotoX> and
// <call-workflows> are not tags, and <call-workflow> is not a <call>. A self-closing <goto/> is a malformed tag, since transition tags need
// a body.
//
// Attributes are key="value" or key='value', keys made of ASCII letters,
// digits, '_' and '-', whitespace allowed around '='. Values may hold any
// character but their own quote, '<' and '>' included, and are decoded:
// &quot; &amp; &lt; &gt; &apos; and the numeric references &#NN; and &#xHH;.
// Other entities are left as written. A duplicated attribute, a value
// without quotes, or anything else in the opening tag makes the tag
// malformed. An opening tag whose trouble is not followed by '>' before the
// next '<', or that has no closing tag, is taken for prose ("use a <goto tag
// to move") and ignored.
//
// The body runs to the first closing tag </name>, whitespace allowed before
// its '>'. Tags inside a body belong to the body and do not count: a <goto>
// inside a <result> payload is part of the payload. For result the body,
// trimmed of surrounding whitespace, is the payload; it is otherwise verbatim
// (no entity decoding). For ask the trimmed body is the question, also kept
// in Payload. For the other tags the trimmed body is the target: for the
// cross-workflow tags a workflow specifier, which the workflow package
// resolves.
// An opening tag without a closing tag is not a tag: Parse reports it (kind
// Unclosed) only when it finds no tag at all.
//
// Two spellings of the original Raymond are read as raymond's, so that its
// prompt folders run unchanged (OldTagName, OldAttrName): <await> is an ask
// (Tag.Name is Ask; Raw keeps what was written), and cwd on function-workflow
// and fork-workflow is cd. A tag that gives both cd and cwd is malformed.
//
// # Code
//
// Tags inside fenced code blocks (``` or ~~~, three or more, closed by at
// least as many of the same character) and inside inline code spans are
// quoted: a tag there must also close there. This is a deliberate decision:
// when the text has any unquoted tag, well formed or malformed, the quoted
// ones are examples and are ignored entirely; when every tag is quoted, the
// quoted ones count, because models sometimes wrap their whole answer in a
// fence. Unclosed opening tags in code are always ignored. See codeSpans for
// how close to CommonMark the reading of code is.
//
// # Rules of Parse
//
// Parse checks, in this order, so that the error names the most basic
// problem:
//
//  1. Grammar: a malformed tag (Malformed).
//  2. Count: no tag (NoTag, or Unclosed if an opening tag was never closed);
//     several tags (SeveralTags) unless they form a valid multi-fork.
//  3. Multi-fork (§5.6): fork and fork-workflow tags, mixed at will: either
//     every one names the same next and no other transition tag appears, or
//     none has next and exactly one <goto> accompanies them; anything else is
//     MultiForkMismatch. A single fork follows the same rule. The values of next are compared
//     as state names (SameState), since a target may omit its extension:
//     "JOIN" and "JOIN.md" are the same next, "JOIN.md" and "JOIN.sh" are
//     not. Tag then holds the next of the first fork, as written.
//  4. Attributes (CheckAttr): goto takes input; reset and reset-workflow
//     input, cd and task="new"; call, function and call-workflow return
//     (required: MissingAttr) and input; function-workflow those and cd
//     (call-workflow refuses cd: its first step branches the caller's
//     session where it was made); ask next (required), timeout (a duration,
//     ParseTimeout) and timeout_next, while cd, input and task are refused
//     and file attachments (upload_*, display_files) are ignored with a
//     warning (Transition.Warnings, Warnings); fork and fork-workflow take
//     next, cd, input, task and any other key, which become template
//     variables (Tag.Vars), task too unless it is "new" or "inherit",
//     except the reserved names: the built-in template values (run_id,
//     workflow_id, agent_id, state, result, task_folder, ask_id); a name
//     a script's environment keeps (PATH, RAYMOND_…) is a variable like
//     any other, which the script runner leaves out of a script's
//     environment with a warning; result takes none. Anything else is
//     Malformed.
//  5. Names: targets, and the values of the attributes that name states
//     of the emitting agent's scope (StateAttr: return, next, timeout_next),
//     must be bare file names (see ValidTarget): EmptyTarget or
//     UnsafeTarget. A target may omit its extension; nothing here touches
//     the file system. A workflow specifier must not be empty, hold a NUL
//     or be invalid UTF-8 (ValidSpecifier); an ask's question must not be
//     empty (Malformed).
//  6. Values: no other attribute value, and no result payload, may hold a
//     NUL byte (Malformed): it would reach a prompt, which is a process
//     argument.
//
// The values of return and next are trimmed like targets are. On a fork,
// return is a template variable like any other, kept as written.
//
// # Transitions
//
// A single tag gives Transition{Tag: t}. A single fork with next gives
// Tag = Forks[0] = the fork. Forks with a common next give Forks = the forks
// and Tag = a synthetic goto to next, with the Offset and Raw of the first
// fork. Forks with an accompanying <goto> give Tag = that goto.
//
// # Print
//
// <print>…</print> is not a transition and never counts. Prints and
// PrintScanner extract its payloads, from a whole text or from a stream.
//
// # Cost
//
// Every function here runs in time linear in the length of the text, with no
// regular expressions: the scanners are hand-written, look at each '<' once
// and remember their searches for closing tags, so that 10 MiB without a
// tag, or full of unclosed or broken tags, costs about one pass
// (BenchmarkParseAdversarial measures such inputs).
package parsing
