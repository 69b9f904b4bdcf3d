//go:build !linux

package testenv

import "syscall"

// dieWithParent is Linux's only: elsewhere a private redis-server outlives an aborted test run.
func dieWithParent() *syscall.SysProcAttr { return nil }
