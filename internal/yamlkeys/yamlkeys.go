// Package yamlkeys finds the keys of a YAML mapping that a struct does
// not read, so that a file's typo is an error naming its line rather
// than a setting silently ignored. It reads the node, not a re-encoded
// copy, so the lines are the file's.
//
// It must not import any other package of docket's.
package yamlkeys

import (
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Unknown returns, in the file's order, the key nodes of the mapping n
// that are neither a field yaml decodes into the struct *v nor in also.
// A node that is not a mapping has none.
func Unknown(n *yaml.Node, v any, also map[string]bool) []*yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	known := Fields(reflect.TypeOf(v).Elem())
	var out []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !known[k.Value] && !also[k.Value] {
			out = append(out, k)
		}
	}
	return out
}

// Fields is the set of keys yaml decodes into struct type t (its fields
// are flat: no inline structs).
func Fields(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "":
			out[strings.ToLower(f.Name)] = true
		default:
			out[name] = true
		}
	}
	return out
}
