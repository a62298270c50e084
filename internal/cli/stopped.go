package cli

// stoppedError ends a command that Ctrl-C stopped, with its own line
// saying what it left (exit 130).
type stoppedError string

func (e stoppedError) Error() string { return string(e) }
func (stoppedError) Unwrap() error   { return errStopped }
