package process

import "syscall"

// sysProcAttr puts the worker in its own process group and has the kernel kill it when the test
// process dies, so that no worker outlives an aborted test run.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
