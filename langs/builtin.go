package langs

import "time"

// builtin is the default catalog, for Debian's toolchains (what make deps
// installs: g++, pypy3, kotlin, nodejs, rustc, openjdk-17-jdk-headless and
// domjudge.go's) and the Go toolchain in /usr/local/go. The versioned C
// and C++ ids (c11, cpp11 ... cpp23) are the -std= that CMS and Codeforces
// packages pin; c and cpp stay C17 and C++17. C and C++ link statically,
// as Kattis, DOMjudge and CMS compile them: the program starts without
// the dynamic loader (libstdc++ found, mapped and relocated, about 1 ms
// of an a+b here, counted in its time on every test) and its run needs
// no library from the host's root at its compile's version.
//
// File names reach these commands only through {files} and {main}, which
// Expand gives as ./name. Rust's crate name is fixed (--crate-name main)
// rather than taken from the file name, which the file name rule lets
// hold characters a crate name cannot (a+b.rs).
func builtin() []*Language {
	gccVersion := []string{"gcc", "--version"}
	cppExt := []string{".cpp", ".cc", ".cxx", ".c++"}
	c := func(id, name, std string, ext []string, src string, compiler string, aliases ...string) *Language {
		return &Language{
			ID: id, Name: name, Aliases: aliases, Extensions: ext, Source: src,
			Compile:           []string{compiler, "-std=" + std, "-O2", "-pipe", "-static", "-DONLINE_JUDGE", "-o", "{exe}", "{files}", "-lm"},
			Run:               []string{"./{exe}"},
			AddressSpaceLimit: false,
			TimeMultiplier:    1,
			Version:           gccVersion,
			// A large initialized static array is in the executable: while
			// linking, its object file (in /tmp) and the executable are
			// both in the compile's space, and both are charged to its
			// memory. DOMjudge compiles with 2 GiB of memory and files of
			// up to 2.5 GiB; here 2 GiB of each, which compiles an
			// array of 600 MiB (700 MiB passes the memory limit, with ld's
			// own: TestLargeStaticArray).
			CompileDiskMB: 2048, CompileMemoryMB: 2048,
		}
	}
	catalog := []*Language{
		c("c", "C (GCC, C17)", "gnu17", []string{".c"}, "main.c", "gcc", "c17"),
		c("cpp", "C++17 (GCC)", "gnu++17", []string{".cpp", ".cc", ".cxx", ".c++"}, "main.cpp", "g++", "cpp17", "c++", "c++17"),
		c("cpp20", "C++20 (GCC)", "gnu++20", cppExt, "main.cpp", "g++", "c++20"),
		c("c11", "C (GCC, C11)", "gnu11", []string{".c"}, "main.c", "gcc"),
		c("cpp11", "C++11 (GCC)", "gnu++11", cppExt, "main.cpp", "g++", "c++11"),
		c("cpp14", "C++14 (GCC)", "gnu++14", cppExt, "main.cpp", "g++", "c++14"),
		c("cpp23", "C++23 (GCC)", "gnu++23", cppExt, "main.cpp", "g++", "c++23"),
		{
			ID: "python3", Name: "Python 3 (CPython)", Extensions: []string{".py"}, Source: "main.py",
			Compile: append([]string{"/usr/bin/python3", "-S"}, pythonCheck...),
			Run:     []string{"/usr/bin/python3", "-S", "-c", pythonMain, "{main}"}, Env: []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8"},
			TimeMultiplier: 2, Version: []string{"/usr/bin/python3", "--version"}, Aliases: []string{"py3", "python"},
		},
		{
			ID: "pypy3", Name: "Python 3 (PyPy)", Extensions: []string{".py"}, Source: "main.py",
			Compile: append([]string{"/usr/bin/pypy3"}, pythonCheck...),
			Run:     []string{"/usr/bin/pypy3", "{main}"}, Env: []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8"},
			TimeMultiplier: 1.5, Version: []string{"/usr/bin/pypy3", "--version"}, Aliases: []string{"pypy"},
		},
		{
			ID: "java", Name: "Java 17 (OpenJDK)", Extensions: []string{".java"}, Source: "Main.java", SourceNaming: NamePublicClass,
			Compile: []string{"javac", "-encoding", "UTF-8", "-J-Xss64m", "-J-XX:+UseSerialGC", "-J-Xms32m", "-d", ".", "{files}"},
			Run:     []string{"java", "-Xss64m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-Xmx{memory_mb}m", "-DONLINE_JUDGE=true", "-cp", ".", "{class}"},
			Binds:   []string{"/etc/java-17-openjdk"}, Threads: 256, TimeMultiplier: 2,
			CompileTime: Duration(60 * time.Second), Version: []string{"javac", "-version"},
			FindMainClass: true, OOMExitCode: jvmOOMExit, MemoryReserveMB: jvmMemoryReserveMB,
		},
		{
			ID: "kotlin", Name: "Kotlin (JVM)", Extensions: []string{".kt"}, Source: "main.kt",
			Compile: []string{"kotlinc", "-J-Xss64m", "-d", ".", "{files}"},
			Run:     []string{"java", "-Xss64m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-Xmx{memory_mb}m", "-DONLINE_JUDGE=true", "-cp", ".:" + kotlinStdlib, "{class}"},
			Binds:   []string{"/etc/java-17-openjdk"}, Threads: 256, TimeMultiplier: 2,
			CompileTime: Duration(120 * time.Second), CompileMemoryMB: 2048, Version: []string{"kotlinc", "-version"},
			FindMainClass: true, OOMExitCode: jvmOOMExit, MemoryReserveMB: jvmMemoryReserveMB,
		},
		{
			ID: "go", Name: "Go", Extensions: []string{".go"}, Source: "main.go",
			Compile: []string{"go", "build", "-o", "{exe}", "{files}"},
			Run:     []string{"./{exe}"},
			Env:     []string{"PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin", "GOCACHE=/tmp/gocache", "GOPATH=/tmp/gopath", "GO111MODULE=off", "CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false"},
			Threads: 128, TimeMultiplier: 1, CompileTime: Duration(60 * time.Second), Aliases: []string{"golang"},
			Version: []string{"/usr/local/go/bin/go", "version"},
		},
		{
			ID: "rust", Name: "Rust", Extensions: []string{".rs"}, Source: "main.rs",
			Compile: []string{"rustc", "--edition=2021", "-O", "--cfg", "online_judge", "--crate-name", "main", "-o", "{exe}", "{main}"},
			Run:     []string{"./{exe}"}, TimeMultiplier: 1, CompileTime: Duration(60 * time.Second),
			Version: []string{"rustc", "--version"},
		},
		{
			ID: "javascript", Name: "JavaScript (Node.js)", Extensions: []string{".js", ".mjs"}, Source: "main.js",
			// Every source is checked, as DOMjudge checks every .js file of
			// a submission: a syntax error in a module the main file
			// imports, or in one it never imports, is CE. node --check
			// takes one file; the check stops at the first that fails.
			Compile: []string{"/bin/sh", "-c", `for f do node --check "$f" || exit; done`, "node-check", "{files}"},
			Run:     []string{"node", "--stack-size=65500", "{main}"}, Aliases: []string{"js", "node"},
			Threads: 64, TimeMultiplier: 1.5, Version: []string{"node", "--version"},
		},
	}
	return append(catalog, domjudgeLangs()...)
}

// pythonMain starts a CPython program as `python3 main.py` does on
// Kattis and DOMjudge, without running the host's site hooks. Python runs
// with -S, so that no .pth file of the host's site-packages runs code in
// every program's start (Debian's distutils hook, or whatever a host's
// packages install: 4 ms of a trivial program's 14 here, counted in its
// time on every test), and no sitecustomize, usercustomize or user
// site-packages is read. What contestants rely on from site is put back
// by hand: exit() and quit() (site.setquit), and the host's
// site-packages directories on sys.path, after the standard library as
// site puts them, without reading their .pth files. sys.argv and
// sys.path[0] are the script's, and the script runs as __main__.
//
// It is one argument of the run's command line, so it holds no brace:
// Expand would read "{...}" as a placeholder.
const pythonMain = `def _docket_main():
    import os, site, sys
    site.setquit()
    main = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(main))
    sys.path.extend(d for d in site.getsitepackages() if os.path.isdir(d) and d not in sys.path)
    glob = sys.modules["__main__"].__dict__
    del glob["_docket_main"]
    glob["__file__"] = main
    with open(main, "rb") as f:
        return compile(f.read(), main, "exec"), glob
exec(*_docket_main())
`

// pythonCheck byte-compiles every source without running it or writing
// a .pyc (the box is read-only once built): a syntax error is a compile
// error, with Python's message, as py_compile reports it on Kattis and
// DOMjudge and compileall on CMS. Every source, not the main one alone:
// DOMjudge and CMS compile them all, and a grader's contestant module
// (a CMS task's plus.py, imported by grader.py) would otherwise fail
// only at its import, RE on every test instead of CE.
var pythonCheck = []string{"-c", "import sys, traceback\n" +
	"bad = []\n" +
	"for f in sys.argv[1:]:\n" +
	"    try: compile(open(f, 'rb').read(), f, 'exec')\n" +
	"    except (SyntaxError, ValueError) as e: bad.append(''.join(traceback.format_exception_only(type(e), e)))\n" +
	"sys.exit(''.join(bad) or None)",
	"{files}"}
