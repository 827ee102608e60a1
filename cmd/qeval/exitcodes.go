package main

// Exit codes. A number is never reused for another meaning.
const (
	exitOK        = 0 // the command did what was asked
	exitFailed    = 1 // the run could not be done (a harness fault: missing file, database that will not open)
	exitUsage     = 2 // bad usage or configuration
	exitThreshold = 3 // the run finished but a gate (threshold, regression) failed
	// exitInterrupted: a second SIGINT or SIGTERM stopped the command at once (128 + SIGINT,
	// as shells report an interrupted program).
	exitInterrupted = 130
)
