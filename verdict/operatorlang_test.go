package verdict

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docketjudge/docket/langs"
	"go.yaml.in/yaml/v3"
)

// operatorLangs is the built-in catalog with a languages file that adds
// copies of the built-in java under other ids, as an operator adds a
// Java 21 entry: java21 with every field, plainjava without
// source_naming.
func operatorLangs(t *testing.T) *langs.Catalog {
	t.Helper()
	java, err := langs.Builtin().Lookup("java")
	if err != nil {
		t.Fatal(err)
	}
	java21, plain := *java, *java
	java21.ID, java21.Name, java21.Aliases = "java21", "Java (operator's)", nil
	plain.ID, plain.Name, plain.Aliases, plain.SourceNaming = "plainjava", "Java without source_naming", nil, ""
	b, err := yaml.Marshal(map[string][]*langs.Language{"languages": {&java21, &plain}})
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "langs.yaml")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := langs.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A Java entry an operator adds through the languages file, under an id
// of its own, gets the built-in java's treatment from its fields alone:
// its source is named after its public class (main.java holds public
// class Solver: javac wants Solver.java) and its main class is found
// among the compiled classes, with the real javac and java. Without
// source_naming javac refuses the file, CE: the field decides, not the id
// or the extension.
func TestOperatorJavaLanguage(t *testing.T) {
	j := testJudge(t)
	j.Langs = operatorLangs(t)
	p := onePlusProblem(t)
	files := map[string]string{"main.java": packagedJava}
	for _, c := range []jvmCase{
		{name: "built-in java", lang: "java", files: files, verdict: AC},
		{name: "operator's java21", lang: "java21", files: files, verdict: AC},
		{name: "java21, entry point", lang: "java21", files: files, entry: "contest.aplusb.Solver", verdict: AC},
		{name: "without source_naming", lang: "plainjava", files: files, verdict: CE, log: "should be declared in a file named Solver.java"},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, j, p) })
	}
}
