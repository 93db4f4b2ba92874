package protocol

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// field is one JSON field as the code writes it: its path (compile.ok,
// tests[].name) and whether an empty value is left out.
type field struct {
	path      string
	omitEmpty bool
}

// jsonFields walks t's json tags: nested structs and lists of structs
// give dotted paths, time.Time and other non-struct types are leaves.
func jsonFields(t reflect.Type, prefix string, nested bool) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := prefix + name
		out = append(out, field{path, strings.Contains(opts, "omitempty")})
		if !nested {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct && ft.PkgPath() != "time":
			out = append(out, jsonFields(ft, path+".", true)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, jsonFields(ft.Elem(), path+"[].", true)...)
		}
	}
	return out
}

// docSection is the text of docs/protocol.md from "## title" to the next
// "## ".
func docSection(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("docs/protocol.md has no section %q", title)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// fieldRows reads a section's field tables (| field | type | written |
// meaning |): each field path in the first cell (several may share a
// row, comma-separated) with its "written" cell.
func fieldRows(section string) map[string]string {
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) < 4 {
			continue
		}
		for _, name := range strings.Split(strings.TrimPrefix(cells[0], "| "), ", ") {
			rows[strings.Trim(name, "`")] = cells[2]
		}
	}
	return rows
}

// checkFieldTable: every field has a row saying how the code writes it
// ("always", or "omitted ..." for an omitempty field), and every row
// names a field the code writes.
func checkFieldTable(t *testing.T, title string, fields []field) {
	rows := fieldRows(docSection(t, title))
	known := map[string]bool{}
	for _, f := range fields {
		known[f.path] = true
		written, ok := rows[f.path]
		switch {
		case !ok:
			t.Errorf("docs/protocol.md, %s: no row for `%s`", title, f.path)
		case f.omitEmpty && !strings.HasPrefix(written, "omitted"):
			t.Errorf("docs/protocol.md, %s: `%s` is left out when empty, the row says %q", title, f.path, written)
		case !f.omitEmpty && !strings.HasPrefix(written, "always"):
			t.Errorf("docs/protocol.md, %s: `%s` is always written, the row says %q", title, f.path, written)
		}
	}
	for path := range rows {
		if !known[path] && !strings.Contains(path, "|") {
			t.Errorf("docs/protocol.md, %s: a row for `%s`, which the code does not write", title, path)
		}
	}
}

// docs/protocol.md lists every field of every event and result as the
// code writes it, and every field of a job: a field added to the structs
// without its documentation fails here.
func TestProtocolDocsListEveryField(t *testing.T) {
	checkFieldTable(t, "Events", jsonFields(reflect.TypeOf(Event{}), "", false))
	checkFieldTable(t, "Result", jsonFields(reflect.TypeOf(Result{}), "", true))
	job := docSection(t, "Job")
	for _, f := range jsonFields(reflect.TypeOf(Job{}), "", true) {
		name := f.path[strings.LastIndex(f.path, ".")+1:]
		if !strings.Contains(job, "`"+name+"`") && !strings.Contains(job, `"`+name+`"`) {
			t.Errorf("docs/protocol.md, Job: `%s` (%s) is not described", name, f.path)
		}
	}
	for _, typ := range []EventType{EventStarted, EventCompile, EventTest, EventGroup, EventFinal} {
		if !strings.Contains(docSection(t, "Events"), "| `"+string(typ)+"` |") {
			t.Errorf("docs/protocol.md, Events: no row for the %s event", typ)
		}
	}
}

// TestProtocolDocsListDeadLetterFields: the dead letter's fields are each
// described where docs/protocol.md shows one.
func TestProtocolDocsListDeadLetterFields(t *testing.T) {
	section := docSection(t, "Every job gets one answer")
	for _, f := range jsonFields(reflect.TypeOf(DeadLetter{}), "", false) {
		if !strings.Contains(section, "`"+f.path+"`") {
			t.Errorf("docs/protocol.md, Every job gets one answer: the dead letter's `%s` is not described", f.path)
		}
	}
}
