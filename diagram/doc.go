// Package diagram draws the static graph of a workflow (lint.BuildGraph):
// as Mermaid flowchart text, and as one self-contained HTML page with an
// inline SVG laid out in layers and each state's prompt a click away.
package diagram
