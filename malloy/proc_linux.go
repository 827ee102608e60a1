package malloy

import (
	"os"
	"syscall"
)

// helperAttrs are the ways to start the helper, most isolated first: in a network
// namespace of its own (no interface but a loopback that is down), as root directly or
// through a user namespace otherwise; then without one, where the system refuses both
// (the bridge's own network lock still holds). Each starts it in its own process group
// (a terminal's Ctrl-C reaches qeval, which ends the helper) and has the kernel end it
// when qeval dies.
func helperAttrs() []*syscall.SysProcAttr {
	base := func() *syscall.SysProcAttr {
		return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	var out []*syscall.SysProcAttr
	if os.Geteuid() == 0 {
		a := base()
		a.Cloneflags = syscall.CLONE_NEWNET
		out = append(out, a)
	} else {
		a := base()
		a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
		out = append(out, a)
	}
	return append(out, base())
}

// killGroup ends the helper and anything it started.
func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }
