package testenv

import "syscall"

// dieWithParent has the kernel kill a server the tests started when the test process dies.
func dieWithParent() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
