package bridge

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
)

// The watch page is one self-contained document: its script and style are
// inlined, and the Content-Security-Policy allows exactly those (by hash)
// plus EventSource connections to this origin. The page reads the
// submission id from its path and the token from its query string itself,
// so nothing from the request is ever written into the HTML.
var (
	//go:embed watch/watch.html
	watchHTML string
	//go:embed watch/watch.js
	watchJS string
	//go:embed watch/watch.css
	watchCSS string

	// Built on the first request, not at start-up: every docket command
	// links the bridge.
	watchPage = sync.OnceValues(buildWatchPage)
)

func buildWatchPage() ([]byte, string) {
	page := strings.NewReplacer("/*STYLE*/", watchCSS, "/*SCRIPT*/", watchJS).Replace(watchHTML)
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	csp := "default-src 'none'; script-src " + hash(watchJS) + "; style-src " + hash(watchCSS) +
		"; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return []byte(page), csp
}

// serveWatch answers GET /watch/{id} (already authorized).
func serveWatch(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	page, csp := watchPage()
	h.Set("Content-Security-Policy", csp)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer") // the URL carries the token
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(http.StatusOK)
	w.Write(page)
}
