// Package docs holds the documentation policy test: README.md and every
// Markdown page under docs/ describe docket as it is, for a reader who has
// never seen its history. The test fails when the README grows past an
// introduction (200 lines), when a page names an issue or a numbered pass
// of work (history belongs in CHANGELOG.md and git log), or when a
// relative link points at a file that does not exist or lies outside the
// repository.
//
// The package has no code of its own, and its test reads files only. It
// must not import any other package of docket's: it judges the documents
// and nothing else.
package docs
