package cli

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// metricsOf returns a JSON result's metrics by name.
func metricsOf(j map[string]any) map[string]float64 {
	m := map[string]float64{}
	ms, _ := j["metrics"].([]any)
	for _, x := range ms {
		o := x.(map[string]any)
		v, _ := o["value"].(float64)
		m[o["name"].(string)] = v
	}
	return m
}

// A sweep over both HTTP servers and both clients runs each, every
// request of the count succeeds, and every result says how much CPU the
// load generator (and, in the same process, the server) used.
func TestRunHTTPServersAndClientCPU(t *testing.T) {
	o := run(t, context.Background(), "run", "http", "--server", "net/http,fasthttp", "--strategy", "prepared",
		"--client", "events,goroutines", "--concurrency", "4", "--count", "400", "--rows", "2", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	js := jsonLines(t, o.out)
	if len(js) != 4 {
		t.Fatalf("%d results, want 4", len(js))
	}
	seen := map[string]bool{}
	for i, j := range js {
		p := j["params"].(map[string]any)
		want := fmt.Sprint(p["server"], " ", p["client"])
		seen[want] = true
		if got := j["ops"].([]any)[0].(map[string]any)["count"].(float64); got != 400 {
			t.Errorf("result %d (%s): %v requests, want 400", i, want, got)
		}
		if e, _ := j["errors"].(map[string]any); len(e) != 0 {
			t.Errorf("%s: errors %v", want, e)
		}
		m := metricsOf(j)
		for _, k := range []string{"process_cpu", "client_cpu", "server_cpu"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: no %s in %v", want, k, m)
			}
		}
		if m["client_cpu"] < 0 || m["client_cpu"]+m["server_cpu"] > m["process_cpu"]*1.0001 {
			t.Errorf("%s: client %.3f + server %.3f cores exceed the process's %.3f", want, m["client_cpu"], m["server_cpu"], m["process_cpu"])
		}
	}
	if len(seen) != 4 {
		t.Errorf("cells %v, want each server with each client", seen)
	}
}

// Loading a server elsewhere, the client's CPU is the whole process's.
func TestRunHTTPExternalClientCPU(t *testing.T) {
	addr, stop := startServe(t, "--server", "net/http", "--strategy", "file", "--addr", "127.0.0.1:0")
	defer stop()
	o := run(t, context.Background(), "run", "http", "--url", "http://"+addr+"/", "--count", "300",
		"--concurrency", "3", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	m := metricsOf(jsonLines(t, o.out)[0])
	if _, ok := m["server_cpu"]; ok || m["client_cpu"] != m["process_cpu"] {
		t.Errorf("external server: %v; want client_cpu = process_cpu and no server_cpu", m)
	}
}

// --server belongs to the HTTP commands: elsewhere, and with a name that
// is no server, it is refused in one line with exit 2.
func TestServerFlagRefused(t *testing.T) {
	for _, args := range [][]string{
		{"run", "insert", "--server", "fasthttp"},
		{"read", "--server", "net/http"},
		{"run", "http", "--server", "fiber"},
		{"run", "http", "--server", "net/http,apache"},
		{"run", "http", "--client", "threads"},
		{"serve", "--server", "nginx"},
	} {
		o := run(t, context.Background(), append(args, "--no-store")...)
		if o.code != 2 || strings.Count(strings.TrimSpace(o.err), "\n") != 0 || !strings.Contains(o.err, "--"+strings.TrimPrefix(args[len(args)-2], "--")) {
			t.Errorf("%v: exit %d, stderr %q", args, o.code, o.err)
		}
	}
}

// The help of the HTTP commands names commands that exist and speaks of
// the experiment, not of the project's internal names for it.
func TestHTTPHelp(t *testing.T) {
	for _, cmd := range [][]string{{"run", "http", "--help"}, {"serve", "--help"}} {
		o := run(t, context.Background(), cmd...)
		if o.code != 0 {
			t.Fatalf("%v: exit %d", cmd, o.code)
		}
		for _, bad := range []string{"seed 003", "turriate", "batchSize"} {
			if strings.Contains(o.out, bad) {
				t.Errorf("%v: help says %q", cmd, bad)
			}
		}
		// Help is wrapped to 80 columns: a title may span two lines.
		if flat := strings.Join(strings.Fields(o.out), " "); !strings.Contains(flat, "--server") || !strings.Contains(flat, "Making SQLite faster in Go") {
			t.Errorf("%v: help does not describe --server or name the experiment", cmd)
		}
		named := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)(?:'|^    )litebench ([a-z]+)( [a-z]+)?`).FindAllStringSubmatch(o.out, -1) {
			words := []string{m[1]}
			if m[1] == "run" && m[2] != "" {
				words = append(words, strings.TrimSpace(m[2]))
			}
			key := strings.Join(words, " ")
			if named[key] {
				continue
			}
			named[key] = true
			if code := Main(context.Background(), append(words, "--help"), io.Discard, io.Discard); code != 0 {
				t.Errorf("%v: help names 'litebench %s', which is no command (exit %d)", cmd, key, code)
			}
		}
		if !named["run http"] && cmd[0] == "run" {
			t.Errorf("%v: help does not name itself as 'litebench run http'", cmd)
		}
	}
}

// Every load reports the CPU litebench itself used over the measured
// part: with a server engine, the client's; here, the in-process
// engine's and the client's together.
func TestRunReportsProcessCPU(t *testing.T) {
	o := run(t, context.Background(), "run", "read", "--rows", "1000", "--count", "20000", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	m := metricsOf(jsonLines(t, o.out)[0])
	if c, ok := m["process_cpu"]; !ok || c <= 0 || c > float64(runtime.NumCPU())*1.5 {
		t.Errorf("process_cpu %v (present %v), want within (0, %d cores]", c, ok, runtime.NumCPU())
	}
}

// Several event loops share the connections out; each request of the
// count is made once.
func TestRunHTTPSeveralLoops(t *testing.T) {
	o := run(t, context.Background(), "run", "http", "--loops", "3", "--concurrency", "7", "--count", "500", "--rows", "2",
		"--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	j := jsonLines(t, o.out)[0]
	if got := j["ops"].([]any)[0].(map[string]any)["count"].(float64); got != 500 {
		t.Errorf("%v requests, want 500", got)
	}
	if e, _ := j["errors"].(map[string]any); len(e) != 0 {
		t.Errorf("errors %v", e)
	}
}
