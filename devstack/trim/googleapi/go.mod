// The development Temporal server's stand-in for google.golang.org/api: only the two small
// packages its Google Cloud Storage archiver names (option, iterator), so the dev server does not
// compile Google's client libraries for an archiver it never enables. See devstack/trim/README.md.
module google.golang.org/api

go 1.26.4

require golang.org/x/oauth2 v0.36.0
