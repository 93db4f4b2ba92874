package bridge

// A small Chrome DevTools Protocol client for the /watch end-to-end test:
// it starts headless Chromium in its own process group with a fresh
// profile, attaches to one page over the DevTools WebSocket (flattened
// sessions), navigates and evaluates JavaScript. Every wait is bounded.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

const browserStartLimit = 30 * time.Second

// chromiumBinary finds Chromium, or skips the test saying why.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("DOCKET_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("skipping the headless browser test: no chromium binary on PATH (Debian: apt-get install chromium; or set DOCKET_CHROMIUM)")
	return ""
}

// tailBuffer keeps the last bytes written to it (Chromium's stderr, for
// failure reports).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - 32<<10; over > 0 {
		b.buf = b.buf[over:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

type browser struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *tailBuffer
	cdp    *cdpConn
}

// startBrowser launches headless Chromium and connects to its DevTools
// endpoint. The browser is killed when the test ends.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromiumBinary(t)
	dir, err := os.MkdirTemp("", "docket-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "profile")
	cmd := exec.Command(bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--no-default-browser-check", "--mute-audio",
		"--user-data-dir="+profile, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"about:blank")
	// Everything Chromium writes stays in dir.
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers die with it
	b := &browser{t: t, cmd: cmd, stderr: &tailBuffer{}}
	cmd.Stdout = b.stderr
	cmd.Stderr = b.stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		if b.cdp != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			b.cdp.call(ctx, "", "Browser.close", nil, nil)
			cancel()
			b.cdp.close()
		}
		select {
		case <-exited:
		case <-time.After(3 * time.Second):
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group we created
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Errorf("chromium (pid %d) did not exit after SIGKILL", cmd.Process.Pid)
		}
		os.RemoveAll(dir)
		if t.Failed() {
			t.Logf("chromium output (tail):\n%s", b.stderr.String())
		}
	})

	// Chromium writes the port and the browser target's path here.
	var wsURL string
	deadline := time.Now().Add(browserStartLimit)
	for wsURL == "" {
		if data, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) == 2 {
				wsURL = "ws://127.0.0.1:" + strings.TrimSpace(lines[0]) + strings.TrimSpace(lines[1])
				break
			}
		}
		select {
		case <-exited:
			t.Fatalf("chromium exited at startup:\n%s", b.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("chromium did not open its DevTools port within %v:\n%s", browserStartLimit, b.stderr.String())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), browserStartLimit)
	defer cancel()
	c, err := dialCDP(ctx, wsURL)
	if err != nil {
		t.Fatalf("DevTools connect %s: %v", wsURL, err)
	}
	b.cdp = c
	return b
}

// page is one tab attached through a flattened session.
type page struct {
	b       *browser
	session string
}

func (b *browser) newPage(ctx context.Context) *page {
	b.t.Helper()
	var target struct{ TargetID string }
	if err := b.cdp.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		b.t.Fatal("Target.createTarget:", err)
	}
	var att struct{ SessionID string }
	if err := b.cdp.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		b.t.Fatal("Target.attachToTarget:", err)
	}
	p := &page{b: b, session: att.SessionID}
	for _, m := range []string{"Page.enable", "Runtime.enable"} {
		if err := b.cdp.call(ctx, p.session, m, nil, nil); err != nil {
			b.t.Fatal(m, err)
		}
	}
	return p
}

func (p *page) navigate(ctx context.Context, url string) {
	p.b.t.Helper()
	var res struct{ ErrorText string }
	if err := p.b.cdp.call(ctx, p.session, "Page.navigate", map[string]any{"url": url}, &res); err != nil || res.ErrorText != "" {
		p.b.t.Fatalf("navigate %s: %v %s", url, err, res.ErrorText)
	}
}

// eval evaluates expr in the page and decodes its (JSON-able) value.
func (p *page) eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.b.cdp.call(ctx, p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res)
	if err != nil {
		return err
	}
	if d := res.ExceptionDetails; d != nil {
		return fmt.Errorf("%s %s", d.Text, d.Exception.Description)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// pollPage evaluates expr in p until ready holds for its value, for at
// most 20 s. It returns the last value, and when ready never held, the
// last evaluation error or errNotReady.
func pollPage[T any](ctx context.Context, p *page, expr string, ready func(T) bool) (T, error) {
	deadline := time.Now().Add(20 * time.Second)
	var v T
	err := errNotReady
	for time.Now().Before(deadline) {
		var zero T
		v = zero
		if err = p.eval(ctx, expr, &v); err == nil && ready(v) {
			return v, nil
		}
		if err == nil {
			err = errNotReady
		}
		time.Sleep(50 * time.Millisecond)
	}
	return v, err
}

var errNotReady = errors.New("not within 20s")

// screenshot captures the viewport.
func (p *page) screenshot(ctx context.Context, path string) error {
	return p.capture(ctx, path, map[string]any{"format": "png"})
}

// capture writes the PNG that Page.captureScreenshot returns for params.
func (p *page) capture(ctx context.Context, path string, params map[string]any) error {
	var res struct{ Data string }
	if err := p.b.cdp.call(ctx, p.session, "Page.captureScreenshot", params, &res); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// cdpConn is the DevTools WebSocket: calls matched to replies by id,
// console messages and exceptions kept for failure reports.
type cdpConn struct {
	ws      *websocket.Conn
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	next    int64
	pending map[int64]chan cdpReply
	console []string
	done    chan struct{}
	err     error
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func dialCDP(ctx context.Context, url string) (*cdpConn, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(64 << 20)
	rctx, cancel := context.WithCancel(context.Background())
	c := &cdpConn{ws: ws, ctx: rctx, cancel: cancel, pending: map[int64]chan cdpReply{}, done: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

func (c *cdpConn) readLoop() {
	defer close(c.done)
	for {
		_, data, err := c.ws.Read(c.ctx)
		if err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
		var msg struct {
			ID     int64           `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			cdpReply
		}
		if json.Unmarshal(data, &msg) != nil {
			continue
		}
		c.mu.Lock()
		if msg.ID != 0 {
			if ch := c.pending[msg.ID]; ch != nil {
				ch <- msg.cdpReply
				delete(c.pending, msg.ID)
			}
		} else if msg.Method == "Runtime.consoleAPICalled" || msg.Method == "Runtime.exceptionThrown" || msg.Method == "Log.entryAdded" {
			c.console = append(c.console, msg.Method+" "+string(bytes.TrimSpace(msg.Params)))
		}
		c.mu.Unlock()
	}
}

// call sends method with params (in session, "" for the browser) and
// decodes the result into out.
func (c *cdpConn) call(ctx context.Context, session, method string, params, out any) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.next++
	id := c.next
	ch := make(chan cdpReply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	req := map[string]any{"id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	if session != "" {
		req["sessionId"] = session
	}
	data, _ := json.Marshal(req)
	if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
		return err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil && len(r.Result) > 0 {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-c.done:
		return errors.New(method + ": DevTools connection closed")
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (c *cdpConn) consoleLog() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.console, "\n")
}

func (c *cdpConn) close() {
	c.cancel()
	c.ws.Close(websocket.StatusNormalClosure, "")
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
	}
}

// fullScreenshot captures the whole page, not only the viewport.
func (p *page) fullScreenshot(ctx context.Context, path string) error {
	var m struct {
		CSSContentSize struct{ Width, Height float64 } `json:"cssContentSize"`
	}
	if err := p.b.cdp.call(ctx, p.session, "Page.getLayoutMetrics", nil, &m); err != nil {
		return err
	}
	clip := map[string]any{"x": 0, "y": 0, "width": m.CSSContentSize.Width, "height": m.CSSContentSize.Height, "scale": 1}
	return p.capture(ctx, path, map[string]any{"format": "png", "clip": clip, "captureBeyondViewport": true})
}
