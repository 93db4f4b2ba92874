package langs

import "time"

// domjudgeLangs are the rest of DOMjudge's default languages, with
// Debian's toolchains (make deps installs them). Ids and extensions are
// DOMjudge's; its short ids are aliases. The interpreted ones have a
// check for their compile step (a syntax error is CE), the way
// DOMjudge's build scripts and Kattis run one; it never runs the program,
// except what Perl runs at compile time (BEGIN blocks), in the same sandbox.
func domjudgeLangs() []*Language {
	return []*Language{
		{
			ID: "pascal", Name: "Pascal (Free Pascal)", Aliases: []string{"pas", "fpc"}, Extensions: []string{".pas", ".p"}, Source: "main.pas",
			// -n: not /etc/fpc.cfg, a link through /etc/alternatives to a
			// versioned file; the unit path it would give instead.
			Compile: []string{"fpc", "-n", "-Fu/usr/lib/x86_64-linux-gnu/fpc/$fpcversion/units/$fpctarget/*",
				"-viwn", "-O2", "-Sg", "-XS", "-o{exe}", "{main}"},
			Run: []string{"./{exe}"}, TimeMultiplier: 1, Version: []string{"fpc", "-iW"},
		},
		{
			ID: "haskell", Name: "Haskell (GHC)", Aliases: []string{"hs", "ghc"}, Extensions: []string{".hs", ".lhs"}, Source: "main.hs",
			Compile: []string{"ghc", "-O2", "-outputdir", "/tmp/ghc", "-o", "{exe}", "{files}"},
			Run:     []string{"./{exe}"}, Env: []string{"HOME=/tmp"}, Binds: []string{"/var/lib/ghc"},
			TimeMultiplier: 1, CompileTime: Duration(60 * time.Second), Version: []string{"ghc", "--version"},
		},
		{
			ID: "ocaml", Name: "OCaml (native)", Aliases: []string{"ml"}, Extensions: []string{".ml"}, Source: "main.ml",
			Compile: []string{"ocamlopt", "-O3", "-o", "{exe}", "{files}"},
			Run:     []string{"./{exe}"}, Env: []string{"TMPDIR=/tmp"},
			TimeMultiplier: 1, CompileTime: Duration(60 * time.Second), Version: []string{"ocamlopt", "-version"},
		},
		{
			ID: "ruby", Name: "Ruby", Aliases: []string{"rb"}, Extensions: []string{".rb"}, Source: "main.rb",
			Compile: []string{"ruby", "-c", "{main}"},
			Run:     []string{"ruby", "{main}"}, Threads: 16,
			TimeMultiplier: 2, Version: []string{"ruby", "--version"},
		},
		{
			ID: "lua", Name: "Lua 5.4", Extensions: []string{".lua"}, Source: "main.lua",
			Compile:        []string{"luac5.4", "-p", "{main}"},
			Run:            []string{"lua5.4", "{main}"},
			TimeMultiplier: 2, Version: []string{"lua5.4", "-v"},
		},
		{
			ID: "perl", Name: "Perl 5", Aliases: []string{"pl"}, Extensions: []string{".pl"}, Source: "main.pl",
			Compile:        []string{"perl", "-c", "{main}"},
			Run:            []string{"perl", "{main}"},
			TimeMultiplier: 2, Version: []string{"perl", "-e", "print qq(perl $^V\n)"},
		},
		{
			ID: "prolog", Name: "Prolog (SWI-Prolog)", Aliases: []string{"plg", "swipl"}, Extensions: []string{".plg", ".pro", ".pl"}, Source: "main.plg",
			// Loading reports syntax errors (--on-error=status: exit 1);
			// a program without main/0 is refused then too, as DOMjudge does.
			Compile: []string{"swipl", "--on-error=status", "-q", "-g",
				"current_predicate(main/0) -> halt ; format(user_error, 'main/0 is not defined~n', []), halt(1)", "{main}"},
			Run: []string{"swipl", "-q", "-g", "main", "-t", "halt", "{main}"}, Threads: 16,
			TimeMultiplier: 2, Version: []string{"swipl", "--version"},
		},
		{
			ID: "r", Name: "R", Aliases: []string{"rscript"}, Extensions: []string{".r"}, Source: "main.R",
			Compile: []string{"Rscript", "-e", "invisible(parse(file = commandArgs(TRUE)[1]))", "{main}"},
			Run:     []string{"Rscript", "{main}"}, Binds: []string{"/etc/R"}, Processes: 16, OpenFiles: 256,
			TimeMultiplier: 2, Version: []string{"Rscript", "--version"},
		},
		{
			ID: "ada", Name: "Ada (GNAT)", Aliases: []string{"adb", "gnat"}, Extensions: []string{".adb"}, Source: "main.adb",
			Compile: []string{"gnatmake", "-q", "-O2", "-o", "{exe}", "{main}"},
			Run:     []string{"./{exe}"}, TimeMultiplier: 1, CompileTime: Duration(60 * time.Second),
			Version: []string{"gnatmake", "--version"},
		},
		{
			ID: "fortran", Name: "Fortran (GFortran)", Aliases: []string{"f95", "f90"}, Extensions: []string{".f95", ".f90"}, Source: "main.f95",
			Compile: []string{"gfortran", "-O2", "-o", "{exe}", "{files}"},
			Run:     []string{"./{exe}"}, TimeMultiplier: 1, Version: []string{"gfortran", "--version"},
		},
		{
			ID: "awk", Name: "AWK (GNU awk)", Aliases: []string{"gawk"}, Extensions: []string{".awk"}, Source: "main.awk",
			// --pretty-print parses the program and prints it, never running it.
			Compile:        []string{"gawk", "--pretty-print=/dev/null", "-f", "{main}"},
			Run:            []string{"gawk", "-f", "{main}"},
			TimeMultiplier: 2, Version: []string{"gawk", "--version"},
		},
		{
			ID: "bash", Name: "Bash", Extensions: []string{".bash"}, Source: "main.bash",
			Compile: []string{"bash", "-n", "{main}"},
			Run:     []string{"bash", "{main}"}, Processes: 16,
			TimeMultiplier: 2, Version: []string{"bash", "--version"},
		},
		{
			ID: "sh", Name: "POSIX shell (dash)", Aliases: []string{"dash"}, Extensions: []string{".sh"}, Source: "main.sh",
			Compile: []string{"/bin/sh", "-n", "{main}"},
			Run:     []string{"/bin/sh", "{main}"}, Processes: 16,
			TimeMultiplier: 2, Version: []string{"/bin/sh", "-c", "dpkg-query -W -f 'dash ${Version}' dash 2>/dev/null || readlink -f /bin/sh"},
		},
		{
			ID: "csharp", Name: "C# (Mono)", Aliases: []string{"cs", "c#", "mono"}, Extensions: []string{".cs", ".csharp"}, Source: "main.cs",
			Compile: []string{"mcs", "-optimize+", "-out:main.exe", "{files}"},
			Run:     []string{"mono", "main.exe"}, Binds: []string{"/etc/mono"}, Threads: 64,
			TimeMultiplier: 1.5, Version: []string{"mcs", "--version"},
		},
		{
			ID: "scala", Name: "Scala 2 (JVM)", Extensions: []string{".scala"}, Source: "main.scala",
			Compile: []string{"scalac", "-J-Xss64m", "-d", ".", "{files}"},
			Run: []string{"java", "-Xss64m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-Xmx{memory_mb}m", "-DONLINE_JUDGE=true",
				"-cp", ".:/usr/share/java/scala-library.jar", "{class}"},
			Binds: []string{"/etc/java-17-openjdk"}, Threads: 256, TimeMultiplier: 2,
			CompileTime: Duration(120 * time.Second), CompileMemoryMB: 2048, Version: []string{"scalac", "-version"},
			// As Java and Kotlin: the object with main is found among the
			// compiled classes; a heap OOM is MLE.
			FindMainClass: true, OOMExitCode: jvmOOMExit, MemoryReserveMB: jvmMemoryReserveMB,
		},
		{
			ID: "php", Name: "PHP", Extensions: []string{".php"}, Source: "main.php",
			// Every source is linted, as JavaScript's: with a grader that
			// includes the contestant's file (a CMS task's grader.php and
			// plus.php), a syntax error there is CE, not RE at the include.
			// php -l takes one file; the check stops at the first that fails.
			Compile: []string{"/bin/sh", "-c", `for f do php -l "$f" || exit; done`, "php-lint", "{files}"},
			Run:     []string{"php", "{main}"}, Binds: []string{"/etc/php"},
			TimeMultiplier: 2, Version: []string{"php", "--version"},
		},
	}
}
