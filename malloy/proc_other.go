//go:build !linux

package malloy

import "syscall"

// helperAttrs: elsewhere the helper runs in qeval's network; the bridge's own network
// lock and Node's permission model hold.
func helperAttrs() []*syscall.SysProcAttr { return []*syscall.SysProcAttr{nil} }

func killGroup(pid int) {}
