package cli

import (
	"context"
	"io"
	"os"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/worker"
)

const workerHelp = `NAME
    litebench worker - serve the worker protocol on standard input and output

SYNOPSIS
    litebench worker

DESCRIPTION
    Reads a job as JSON lines on standard input, runs it in this process and
    writes its events (set-up done, intervals, acknowledgements, final
    histograms and counts) as JSON lines on standard output, as described in
    docs/worker-protocol.md. litebench starts it itself for runs with
    --placement process; another controller, or a person debugging, may start
    it by hand. Logs go to standard error. It ends at "close", at the end of
    its input, or on SIGINT/SIGTERM (a run in progress ends as interrupted).
`

func cmdWorker(ctx context.Context, args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	page := helpPage{text: workerHelp, examples: []string{"litebench worker < job.jsonl", "litebench insert --placement process --rows 100k"},
		seeAlso: []string{"conform", "list targets"}}
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("worker takes no arguments (it reads JSON lines on standard input)")
	}
	worker.Version = versionString()
	return worker.Serve(ctx, os.Stdin, out)
}
