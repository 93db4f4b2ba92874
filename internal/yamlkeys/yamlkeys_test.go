package yamlkeys

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestUnknown(t *testing.T) {
	var s struct {
		Name    string `yaml:"name"`
		Plain   int
		Skipped int `yaml:"-"`
		hidden  int
	}
	_ = s.hidden
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("name: x\nplain: 1\nskipped: 2\nnmae: y\ntoken_mode: z\nhidden: 3\n"), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range Unknown(doc.Content[0], &s, map[string]bool{"token_mode": true}) {
		got = append(got, k.Value)
		if k.Value == "nmae" && k.Line != 4 {
			t.Errorf("nmae on line %d, want 4", k.Line)
		}
	}
	if len(got) != 3 || got[0] != "skipped" || got[1] != "nmae" || got[2] != "hidden" {
		t.Errorf("unknown keys %v, want skipped, nmae, hidden", got)
	}
	if Unknown(doc.Content[0].Content[1], &s, nil) != nil {
		t.Error("a scalar has unknown keys")
	}
}
