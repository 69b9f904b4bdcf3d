// The development Temporal server's stand-in for go.temporal.io/auto-scaled-workers: the same
// package paths with worker auto-scaling switched off, so the dev server does not compile the
// compute providers (Kubernetes, AWS Lambda/ECS/Bedrock, Cloud Run) it never calls. See
// devstack/trim/README.md.
module go.temporal.io/auto-scaled-workers

go 1.26.4

require (
	go.temporal.io/api v1.63.5
	go.temporal.io/server v1.32.1
	go.uber.org/fx v1.24.0
)
