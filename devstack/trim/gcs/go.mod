// The development Temporal server's stand-in for cloud.google.com/go/storage: the types its
// Google Cloud Storage archiver names, with every operation refused, so the dev server does not
// compile the Cloud Storage client (and the gRPC xDS and Google auth stacks behind it) for an
// archiver it never enables. See devstack/trim/README.md.
module cloud.google.com/go/storage

go 1.26.4

require google.golang.org/api v0.276.0
