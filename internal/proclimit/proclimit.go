// Package proclimit sets the memory limits of the qeval process. It caps the address
// space (QEVAL_MAX_MEMORY), so that an engine allocating past it fails its query instead
// of the system killing the run, and starts the programs qeval runs (target commands,
// the systems under test) with the limit qeval itself started with: the cap bounds
// qeval's engines, not a user's model server. It also fits the garbage collector to
// the command (TuneGC, TuneForSuite, TuneForServer).
package proclimit

import (
	"context"
	"os/exec"
)

// Command is exec.CommandContext, except that the program gets back the address-space
// limit qeval started with when CapAddressSpace lowered qeval's own.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	if w := wrapper(); w != nil {
		return exec.CommandContext(ctx, w[0], append(append(w[1:], name), args...)...)
	}
	return exec.CommandContext(ctx, name, args...)
}
