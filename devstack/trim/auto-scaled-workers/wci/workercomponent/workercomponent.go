// Package workercomponent would register the worker controller's workflows on every namespace's
// system worker; without auto-scaling there are none, so its Module adds nothing.
package workercomponent

import "go.uber.org/fx"

// Module adds no per-namespace worker component.
var Module = fx.Options()
