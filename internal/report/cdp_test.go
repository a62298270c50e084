package report

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// browser is headless Chromium driven over its DevTools protocol on a
// pipe (--remote-debugging-pipe: requests on fd 3, replies and events on
// fd 4, each a JSON object ended by a NUL byte), so that the test needs
// neither a WebSocket nor a driver library.
type browser struct {
	cmd     *exec.Cmd
	w       io.WriteCloser
	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpMsg
	events  chan cdpMsg
	session string
	done    chan struct{}
}

type cdpMsg struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId,omitempty"`
}

// chromiumPath finds the browser, or skips the test (fails it when
// LITEBENCH_REQUIRE_BROWSER is set, as in CI).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("LITEBENCH_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium on PATH and LITEBENCH_REQUIRE_BROWSER is set")
	}
	t.Skip("no chromium on PATH (apt-get install chromium)")
	return ""
}

// startBrowser starts Chromium with a fresh profile and opens one page
// of the given width.
func startBrowser(t *testing.T, width int) *browser {
	t.Helper()
	bin := chromiumPath(t)
	toChrome, ourW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ourR, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars", "--font-render-hinting=none",
		"--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers end with it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	fromChrome.Close()
	b := &browser{cmd: cmd, w: ourW, waiting: map[int]chan cdpMsg{}, events: make(chan cdpMsg, 256), done: make(chan struct{})}
	go b.read(ourR)
	t.Cleanup(func() {
		// Browser.close ends the browser; its helper processes, in its
		// process group, go with it.
		ourW.Write([]byte(`{"id":999999,"method":"Browser.close"}` + "\x00"))
		ourW.Close()
		exited := make(chan struct{})
		go func() { b.cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
		}
		syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		ourR.Close()
	})
	var target struct{ TargetID string }
	b.call(t, "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var att struct{ SessionID string }
	b.call(t, "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	b.session = att.SessionID
	b.call(t, "Page.enable", nil, nil)
	b.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil)
	return b
}

func (b *browser) read(r io.Reader) {
	defer close(b.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMsg
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.waiting[m.ID]
			delete(b.waiting, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case b.events <- m:
		default: // nobody waits for it
		}
	}
}

// call sends a command to the page's session (the browser's, before one
// is attached) and decodes its result into out.
func (b *browser) call(t *testing.T, method string, params, out any) {
	t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMsg, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	req := map[string]any{"id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	if b.session != "" {
		req["sessionId"] = b.session
	}
	msg, _ := json.Marshal(req)
	if _, err := b.w.Write(append(msg, 0)); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		}
	case <-b.done:
		t.Fatalf("%s: chromium exited", method)
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: no answer from chromium in 60 s", method)
	}
}

// open loads a file and waits for its load event.
func (b *browser) open(t *testing.T, path string) {
	t.Helper()
	for len(b.events) > 0 {
		<-b.events
	}
	abs, _ := filepath.Abs(path)
	b.call(t, "Page.navigate", map[string]any{"url": "file://" + abs}, nil)
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m := <-b.events:
			if m.Method == "Page.loadEventFired" {
				return
			}
		case <-deadline:
			t.Fatalf("%s did not load in 60 s", path)
		}
	}
}

// eval runs a JavaScript expression in the page (awaiting a promise) and
// decodes its value into out.
func (b *browser) eval(t *testing.T, expr string, out any) {
	t.Helper()
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
	b.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	if e := res.ExceptionDetails; e != nil {
		t.Fatalf("script failed: %s %s", e.Text, e.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			t.Fatalf("script result %s: %v", res.Result.Value, err)
		}
	}
}

// screenshot writes the whole page as a PNG.
func (b *browser) screenshot(t *testing.T, width int, path string) {
	t.Helper()
	var h float64
	b.eval(t, "document.documentElement.scrollHeight", &h)
	b.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": int(h), "deviceScaleFactor": 1, "mobile": false}, nil)
	var shot struct{ Data string }
	b.call(t, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	b.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil)
	fmt.Fprintf(os.Stderr, "screenshot: %s\n", path)
}
