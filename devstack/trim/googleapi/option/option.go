// Package option has the client option type of Google's client libraries, for code that names
// it; nothing here configures a client.
package option

import "golang.org/x/oauth2"

// ClientOption configures a Google API client.
type ClientOption interface{ applyOption() }

type tokenSource struct{ oauth2.TokenSource }

func (tokenSource) applyOption() {}

// WithTokenSource authenticates the client with ts.
func WithTokenSource(ts oauth2.TokenSource) ClientOption { return tokenSource{ts} }
