//go:build !linux

package process

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
