package verdict

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
)

// Java and Kotlin sources for the JVM verdict and entry point tests: a+b
// and the ways a JVM program fails.
const (
	// oomLoopJava keeps every array it allocates until memory runs out.
	oomLoopJava = `import java.util.ArrayList;
import java.util.List;
public class Oom {
    public static void main(String[] args) {
        List<long[]> kept = new ArrayList<>();
        while (true) kept.add(new long[1 << 20]);
    }
}
`
	// hugeArrayJava asks for 3.2 GB at once: over the heap (-Xmx) before
	// the cgroup sees any of it. The JVM throws OutOfMemoryError, which
	// the program could catch and print over; it is judged by the exit.
	hugeArrayJava = `public class Huge {
    public static void main(String[] args) {
        try {
            long[] table = new long[400_000_000];
            System.out.println(table.length);
        } catch (OutOfMemoryError e) {
            System.out.println("5");
        }
    }
}
`
	// deepJava overflows its 64 MiB stack (-Xss64m); unwinding it takes
	// the JVM 250-450 MiB of its own, which the language's
	// memory_reserve_mb covers: RE even under a 64 MiB limit.
	deepJava = `public class Deep {
    static long depth(long n) { return depth(n + 1) + 1; }
    public static void main(String[] args) { System.out.println(depth(0)); }
}
`
	packagedJava = `package contest.aplusb;

import java.util.Scanner;

public class Solver {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong());
    }
}
`
	// mainInSecondJava has its main in the second class, not public.
	mainInSecondJava = `import java.util.Scanner;
class Helper {
    static long add(long a, long b) { return a + b; }
}
class Runner {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(Helper.add(in.nextLong(), in.nextLong()));
    }
}
`
	noMainJava = `public class NoMain {
    static void main(String[] args) { System.out.println(5); } // not public
}
`
	// twoMainsJava: Plus is right, Minus wrong; neither is named after
	// the file, so without an entry point the first in order runs (Minus).
	twoMainsJava = `import java.util.Scanner;
class Plus {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong());
    }
}
class Minus {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() - in.nextLong());
    }
}
`
	objectKotlin = `object Solver {
    @JvmStatic
    fun main(args: Array<String>) {
        val (a, b) = readLine()!!.trim().split(Regex("\\s+")).map { it.toLong() }
        println(a + b)
    }
}
`
	noMainKotlin = "fun add(a: Long, b: Long) = a + b\n"
	minusPython  = "a, b = map(int, input().split())\nprint(a - b)\n"
)

// onePlusProblem is a+b with one test, on which a-b is wrong.
func onePlusProblem(t *testing.T) *problem.Problem {
	t.Helper()
	return loadPackage(t, map[string]string{"problem.yaml": "name: a+b\n", "data/secret/1.in": "2 3\n", "data/secret/1.ans": "5\n"})
}

// jvmCase is one submission and what it must get.
type jvmCase struct {
	name, lang string
	files      map[string]string
	entry      string
	memMB      int
	verdict    Verdict
	source     string // the test's verdict_source, "" for any
	log        string // a part of the compile log, "" for any
}

func (c jvmCase) check(t *testing.T, j *Judge, p *problem.Problem) {
	sub := toSubmission(c.lang, c.files)
	sub.EntryPoint = c.entry
	res := j.Judge(context.Background(), p, sub, Options{MemoryMB: c.memMB, TimeLimit: 5 * time.Second})
	if res.Verdict != c.verdict {
		t.Fatalf("%s, want %s: error %q, compile log %q, tests %+v", res.Verdict, c.verdict, res.Error, res.Compile.Log, res.Tests)
	}
	if c.source != "" && (len(res.Tests) == 0 || res.Tests[0].VerdictSource != c.source) {
		t.Errorf("tests %+v, want verdict_source %s", res.Tests, c.source)
	}
	if !strings.Contains(res.Compile.Log, c.log) {
		t.Errorf("compile log %q does not say %q", res.Compile.Log, c.log)
	}
}

// The JVM's failures get their verdicts, with the real javac, kotlinc
// and java in the sandbox: a heap (-Xmx) exhausted is MLE memory_heap
// even if the program catches the error (before: RE, or the program's
// own answer), a heap filled bit by bit too (the JVM's own memory is
// reserved beyond the limit, memory_reserve_mb); a stack overflow RE
// even under 64 MiB (before the reserve: MLE, the JVM's unwinding).
// The main class is found among the compiled classes: in a package, in
// a second non-public class, in a Kotlin object (before: a source regex
// picked the first class, or the jar's manifest none); none is CE.
func TestJVMVerdicts(t *testing.T) {
	j := testJudge(t)
	p := onePlusProblem(t)
	for _, c := range []jvmCase{
		{name: "heap exhausted", lang: "java", files: map[string]string{"Huge.java": hugeArrayJava}, memMB: 256, verdict: MLE, source: SourceHeap},
		{name: "memory exhausted", lang: "java", files: map[string]string{"Oom.java": oomLoopJava}, memMB: 128, verdict: MLE, source: SourceHeap},
		{name: "stack overflow", lang: "java", files: map[string]string{"Deep.java": deepJava}, memMB: 64, verdict: RE, source: "exit_code"},
		{name: "package", lang: "java", files: map[string]string{"Main.java": packagedJava}, verdict: AC},
		{name: "main in the second class", lang: "java", files: map[string]string{"Main.java": mainInSecondJava}, verdict: AC},
		{name: "java without main", lang: "java", files: map[string]string{"NoMain.java": noMainJava}, verdict: CE, log: "no class has a method public static void main"},
		{name: "kotlin object", lang: "kotlin", files: map[string]string{"sol.kt": objectKotlin}, verdict: AC},
		{name: "kotlin without main", lang: "kotlin", files: map[string]string{"sol.kt": noMainKotlin}, verdict: CE, log: "no class has a method public static void main"},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, j, p) })
	}
}

// An entry point chooses the main class among several, or the main
// source file among several; one that names nothing of the submission
// is CE, saying what there is.
func TestEntryPoint(t *testing.T) {
	j := testJudge(t)
	p := onePlusProblem(t)
	twoMains := map[string]string{"Mains.java": twoMainsJava}
	twoPy := map[string]string{"a.py": minusPython, "b.py": plainPython}
	for _, c := range []jvmCase{
		{name: "java, the first main", lang: "java", files: twoMains, verdict: WA, log: "several classes have a main method (Minus, Plus): running Minus"},
		{name: "java, entry Plus", lang: "java", files: twoMains, entry: "Plus", verdict: AC},
		{name: "java, entry in a package", lang: "java", files: map[string]string{"Main.java": packagedJava}, entry: "contest.aplusb.Solver", verdict: AC},
		{name: "java, entry without main", lang: "java", files: twoMains, entry: "Times", verdict: CE, log: "no class Times with public static void main(String[]) (classes with one: Minus, Plus)"},
		{name: "java, entry a file", lang: "java", files: twoMains, entry: "Mains.jav", verdict: CE, log: "no class Mains.jav"},
		{name: "python, the first file", lang: "python3", files: twoPy, verdict: WA},
		{name: "python, entry b.py", lang: "python3", files: twoPy, entry: "b.py", verdict: AC},
		{name: "python, entry not a file", lang: "python3", files: twoPy, entry: "c.py", verdict: CE, log: `entry point "c.py" is not a Python`},
		{name: "python, entry a class", lang: "python3", files: twoPy, entry: "pkg.Main", verdict: CE, log: `entry point "pkg.Main" is not a Python`},
		{name: "bad entry point", lang: "python3", files: twoPy, entry: "-c", verdict: CE, log: "invalid entry point"},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, j, p) })
	}
}

// checkJava is a Kattis output validator in Java, in a package: exit 42
// when the team's number is the answer's, else 43.
const checkJava = `package judge;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Scanner;

public class Check {
    public static void main(String[] args) throws Exception {
        long want = Long.parseLong(Files.readString(Path.of(args[1])).trim());
        Scanner team = new Scanner(System.in);
        System.exit(team.hasNextLong() && team.nextLong() == want ? 42 : 43);
    }
}
`

// A problem's own program in Java gets its main class the same way,
// when compiled and when found again in the cache (the second and third
// judgings): an accepted and a wrong submission are told apart by it.
func TestJavaValidatorCached(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, map[string]string{
		"problem.yaml": "name: a+b\nvalidation: custom\n", "data/secret/1.in": "2 3\n", "data/secret/1.ans": "5\n",
		"output_validators/check/Check.java": checkJava,
	})
	for i, c := range []struct {
		src  string
		want Verdict
	}{{plainPython, AC}, {minusPython, WA}, {plainPython, AC}} {
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"main.py": c.src}), Options{TimeLimit: 5 * time.Second})
		if res.Verdict != c.want || len(res.Tests) != 1 || res.Tests[0].VerdictSource != SourceChecker {
			t.Errorf("judging %d: %s, want %s by the checker: %s %+v", i+1, res.Verdict, c.want, res.Error, res.Tests)
		}
	}
}

// A two-program submission takes no entry point: CE, saying so, before
// anything is compiled; without one it is judged as ever.
func TestEntryPointTwoPrograms(t *testing.T) {
	j := testJudge(t)
	p, err := problem.Load("../problems/twostep-programs")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, n := range []string{"first.py", "second.py"} {
		b, err := os.ReadFile(filepath.Join("../problems/twostep-programs/submissions/accepted/python", n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = string(b)
	}
	sub := toSubmission("python3", files)
	sub.EntryPoint = "first.py"
	res := j.Judge(context.Background(), p, sub, Options{})
	if res.Verdict != CE || !strings.Contains(res.Compile.Log, "a two-program submission has two") || len(res.Tests) != 0 {
		t.Errorf("with an entry point: %s, log %q, %d tests; want CE before judging", res.Verdict, res.Compile.Log, len(res.Tests))
	}
	sub.EntryPoint = ""
	if res := j.Judge(context.Background(), p, sub, Options{}); res.Verdict != AC {
		t.Errorf("without: %s %s", res.Verdict, res.Error)
	}
}
