package langs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/docketjudge/docket/langs/classfile"
)

// What JVM languages (find_main_class) need: the main class is found
// among the compiled classes, not guessed from the source.

var (
	// ErrEntryPoint: an entry point that is neither a file name nor a
	// class name, or names nothing the submission has.
	ErrEntryPoint = errors.New("invalid entry point")
	// ErrNoMainClass: no compiled class has a main method.
	ErrNoMainClass = errors.New("no main class")
	// ErrTooManyClasses: the compiled program has more class files than
	// MaxClassFiles, or one larger than MaxClassFileSize.
	ErrTooManyClasses = errors.New("compiled classes over the limit")
)

// jvmOOMExit is the exit code of a JVM run with
// -XX:+ExitOnOutOfMemoryError when the heap (-Xmx) is exhausted: the JVM
// ends there, with 3, before any handler of the program runs. A program
// can exit 3 itself, but only to be judged MLE instead of RE: a failure
// either way.
const jvmOOMExit = 3

// jvmMemoryReserveMB is the JVM's own memory beyond the heap limit
// (-Xmx{memory_mb}m): its code, metaspace, thread stacks and HotSpot's
// arenas. 512 MiB covers the worst measured, a StackOverflowError
// unwound from the 64 MiB stack (-Xss64m): 340-490 MiB of RSS under any
// heap limit on JDK 17, of which 250 MiB is a thread arena.
const jvmMemoryReserveMB = 512

// kotlinStdlib is the Kotlin runtime the compiled classes run with: the
// one beside Debian's kotlinc (lib/kotlin-stdlib.jar), the compiler's own.
const kotlinStdlib = "/usr/share/kotlin/kotlinc/lib/kotlin-stdlib.jar"

// Bounds on the compiled classes docket reads to find the main class.
// The compiler's disk and inode limits bound them too; these keep the
// reading itself small.
const (
	MaxClassFiles    = 10000
	MaxClassFileSize = 16 << 20
	// MaxClassName bounds a fully qualified class name given as an entry point.
	MaxClassName = 1024
)

// ValidClassName reports whether s is a fully qualified Java class name:
// identifiers (letters, digits, _ and $, not starting with a digit)
// joined by dots. Such a name can never be read as an option ('-', '@').
func ValidClassName(s string) bool {
	if s == "" || len(s) > MaxClassName {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if !javaIdentifier(part) {
			return false
		}
	}
	return true
}

func javaIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := unicode.IsLetter(c) || c == '_' || c == '$'
		if !letter && (i == 0 || !unicode.IsDigit(c)) {
			return false
		}
	}
	return true
}

// ValidEntryPoint checks a submission's entry point: a file name
// (ValidFileName) or a fully qualified class name (ValidClassName).
// Which one it must be depends on the language, known when judging.
func ValidEntryPoint(e string) error {
	if ValidFileName(e) == nil || ValidClassName(e) {
		return nil
	}
	q := e
	if len(q) > 64 {
		q = q[:64] + "..."
	}
	return fmt.Errorf("%w %q: an entry point is a file name (A-Z a-z 0-9 _ . + -) or a Java class name (identifiers joined by dots)", ErrEntryPoint, q)
}

// MainClasses lists, sorted, the classes with public static void
// main(String[]) among the .class files under dir, except those named in
// skip (files of the submission itself: only what the compiler made
// counts). A file that is not a readable class file is passed over.
func MainClasses(dir string, skip map[string]bool) ([]string, error) {
	var mains []string
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(p, ".class") {
			return err
		}
		if rel, _ := filepath.Rel(dir, p); skip[rel] {
			return nil
		}
		if n++; n > MaxClassFiles {
			return fmt.Errorf("%w: more than %d class files", ErrTooManyClasses, MaxClassFiles)
		}
		c, err := readClass(p)
		if err == nil && c.HasMain {
			mains = append(mains, c.Name)
		}
		return ignoreMalformed(err)
	})
	sort.Strings(mains)
	return mains, err
}

func readClass(p string) (*classfile.Class, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if info.Size() > MaxClassFileSize {
		return nil, fmt.Errorf("%w: %s has %d bytes, over %d", ErrTooManyClasses, filepath.Base(p), info.Size(), MaxClassFileSize)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return classfile.Parse(b)
}

func ignoreMalformed(err error) error {
	if errors.Is(err, classfile.ErrMalformed) {
		return nil
	}
	return err
}

// ChooseMainClass picks the class to run among mains (sorted): the entry
// point when one is given (it must be among them); else the only one;
// else the one named after the main source file (Sol for Sol.java, SolKt
// for sol.kt), else the first in order, with a note for the compile log.
func ChooseMainClass(mains []string, entry, mainSource string) (class, note string, err error) {
	switch {
	case entry != "":
		for _, m := range mains {
			if m == entry {
				return m, "", nil
			}
		}
		return "", "", fmt.Errorf("%w: no class %s with public static void main(String[]) (classes with one: %s)", ErrEntryPoint, entry, listOrNone(mains))
	case len(mains) == 0:
		return "", "", fmt.Errorf("%w: no class has a method public static void main(String[] args)", ErrNoMainClass)
	case len(mains) == 1:
		return mains[0], "", nil
	}
	class = mains[0]
	if named := namedAfter(mains, mainSource); named != "" {
		class = named
	}
	note = fmt.Sprintf("several classes have a main method (%s): running %s, the one named after %s or else the first; an entry point chooses another",
		strings.Join(mains, ", "), class, mainSource)
	return class, note, nil
}

// namedAfter finds the one class whose simple name is the source file's
// base name, or Kotlin's file class for it (sol.kt: SolKt).
func namedAfter(mains []string, source string) string {
	base := strings.TrimSuffix(source, filepath.Ext(source))
	var kt string
	if base != "" {
		kt = strings.ToUpper(base[:1]) + base[1:] + "Kt"
	}
	found := ""
	for _, m := range mains {
		simple := m[strings.LastIndex(m, ".")+1:]
		if simple == base || simple == kt {
			if found != "" {
				return "" // two packages with the same simple name
			}
			found = m
		}
	}
	return found
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// NamePublicClass is the SourceNaming by which a source file is named
// after its public top-level type, <Class> plus its extension (Java's:
// javac refuses a public class Sol in main.java).
const NamePublicClass = "public_class"

// SourceName is the name the language's rule (SourceNaming) gives the
// source file name with content src in the box: name itself when the
// language has no rule or the rule does not apply (no public class).
// The extension is kept, in lower case (Main.JAVA becomes Sol.java).
func (l *Language) SourceName(name string, src []byte) string {
	if l.SourceNaming != NamePublicClass {
		return name
	}
	class := JavaPublicClass(src)
	if class == "" {
		return name
	}
	return class + strings.ToLower(filepath.Ext(name))
}

var javaPublicClass = regexp.MustCompile(`(?m)^\s*public\s+(?:(?:final|abstract|sealed|non-sealed|strictfp)\s+)*(?:class|interface|enum|record)\s+([A-Za-z_$][A-Za-z0-9_$]*)`)

// JavaPublicClass finds a Java source's public top-level type: javac
// requires the file be named after it, so the judge names the file so.
// "" when the source has none.
func JavaPublicClass(src []byte) string {
	if m := javaPublicClass.FindSubmatch(src); m != nil {
		return string(m[1])
	}
	return ""
}
